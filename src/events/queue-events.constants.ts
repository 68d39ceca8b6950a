/** Metadata key written by `@OnQueueEvent` on a method; values are {@link QueueEventSubscription} lists. */
export const QUEUE_EVENT_LISTENER_METADATA = 'action_queue:event_listener';
