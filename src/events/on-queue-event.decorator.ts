import { QUEUE_EVENT_NAMES, QueueEventName } from './queue-event-names';
import { QUEUE_EVENT_LISTENER_METADATA } from './queue-events.constants';
import type { QueueEventListenerOptions } from './queue-events';

/** What one `@OnQueueEvent` on a method asks for. */
export interface QueueEventSubscription {
  name: QueueEventName;
  options: Pick<QueueEventListenerOptions, 'maxBacklog'>;
}

/**
 * Marks a provider's method as a listener of one lifecycle event, like
 * `@OnWorkerEvent` of `@nestjs/bullmq`. The provider may live in any module;
 * its methods are found at start-up and called with the event's payload
 * after the change committed, asynchronously, at most once (see
 * {@link QueueEvents}). A method may carry several of these.
 *
 * @param name one of `completed`, `failed`, `retried`, `cancelled`, `blocked`, `unblocked`.
 * @param options `maxBacklog`: events kept waiting for this method at most (default 1 000).
 * @throws TypeError when the class is declared with an unknown event name.
 * @example
 * ```ts
 * @Injectable()
 * export class Alerts {
 *   @OnQueueEvent('failed')
 *   onFailed(event: ActionFailedEvent) {
 *     if (!event.willRetry) this.pager.send(`action ${event.actionId} failed: ${event.error}`);
 *   }
 * }
 * ```
 * @publicApi
 */
export function OnQueueEvent(name: QueueEventName, options: Pick<QueueEventListenerOptions, 'maxBacklog'> = {}): MethodDecorator {
  if (!(QUEUE_EVENT_NAMES as readonly string[]).includes(name)) {
    throw new TypeError(`@OnQueueEvent: unknown queue event ${JSON.stringify(name)}: one of ${QUEUE_EVENT_NAMES.join(', ')}`);
  }
  return (_target, _key, descriptor: PropertyDescriptor) => {
    const method = descriptor.value as object;
    const earlier = (Reflect.getMetadata(QUEUE_EVENT_LISTENER_METADATA, method) as QueueEventSubscription[] | undefined) ?? [];
    Reflect.defineMetadata(QUEUE_EVENT_LISTENER_METADATA, [...earlier, { name, options }], method);
    return descriptor;
  };
}
