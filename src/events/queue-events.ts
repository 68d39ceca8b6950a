import type { QueueEventName } from './queue-event-names';
import type { QueueEventPayloads } from './queue-event-payloads';

/** A listener of one event: may return a promise, which delays only its own next event. @publicApi */
export type QueueEventListener<N extends QueueEventName> = (payload: QueueEventPayloads[N]) => unknown;

/** How one listener is fed. @publicApi */
export interface QueueEventListenerOptions {
  /**
   * Events kept waiting for this listener at most (default 1 000); beyond it
   * new events are dropped and counted (`action_queue_events_dropped_total`).
   */
  maxBacklog?: number;
  /** Names the listener in the log lines about its errors (default: the function's name). */
  name?: string;
}

/**
 * The queue's lifecycle events in this process, for the host app: inject it
 * and call {@link QueueEvents.on}, or mark a provider's method with
 * `@OnQueueEvent` (it is the DI token; the module provides the
 * implementation). Event names and what each means: `QueueEventName`
 * (src/events/queue-event-names.ts); payloads: {@link QueueEventPayloads}.
 *
 * Delivery: after the change committed, in this process, asynchronously:
 * each listener has its own bounded backlog, fed one event at a time on later
 * turns of the event loop, so a slow, hung or throwing listener never delays
 * or breaks claims and finishes. Its errors are logged (Nest Logger), never
 * thrown back. At most once: an event is lost when the process stops before
 * delivering it, or when the listener's backlog is full (then counted in
 * `action_queue_events_dropped_total{event}`); the actions' rows and their
 * attempts' trace are the durable record. Only this instance's work is
 * reported: the attempts its worker recorded, the commands (REST, bulk
 * operations or `ActionQueue`) it ran and the leases its reaper ended for
 * good; another instance's work, plain-SQL changes and the command line's
 * commands are not.
 *
 * @example
 * ```ts
 * @Injectable()
 * export class Audit implements OnModuleInit {
 *   constructor(private readonly events: QueueEvents) {}
 *   onModuleInit() {
 *     this.events.on('completed', (event) => this.log.info(`action ${event.actionId} done`));
 *   }
 * }
 * ```
 * @publicApi
 */
export abstract class QueueEvents {
  /**
   * Listens for one event.
   * @param name one of `completed`, `failed`, `retried`, `cancelled`, `blocked`, `unblocked`.
   * @param listener called with each payload, after the change committed; its errors are logged.
   * @param options its backlog bound and the name its log lines use.
   * @returns a function that stops delivery to this listener (events still waiting for it are discarded); calling it again does nothing.
   * @throws TypeError for an unknown event name, a listener that is not a function or a backlog bound that is not a positive integer.
   */
  abstract on<N extends QueueEventName>(name: N, listener: QueueEventListener<N>, options?: QueueEventListenerOptions): () => void;
}
