import type { QueueEventName } from './queue-event-names';
import type { QueueEventPayloads } from './queue-event-payloads';

/**
 * Where the queue's parts report a change after it committed: the one
 * dependency the worker (src/queue/attempt/) and the operators' commands
 * (src/actions/, src/bulk-operations/) have on the events, so they import
 * nothing of how events are delivered. `publish` never throws and never
 * waits: delivery happens later, off the caller's path (QueueEvents).
 */
export abstract class QueueEventSink {
  /**
   * Reports one committed change. Call it only after the transaction that made
   * the change committed, never inside one that may roll back.
   * @param name the event.
   * @param payload its payload.
   */
  abstract publish<N extends QueueEventName>(name: N, payload: QueueEventPayloads[N]): void;

  /** Whether anyone listens for `name`: lets a publisher skip building a payload nobody reads. */
  abstract wanted(name: QueueEventName): boolean;
}
