/**
 * Ordered action queue on PostgreSQL: FIFO per lock id, parallel across lock
 * ids, at least once with leases and fencing.
 *
 * Three ways to use it: {@link ActionQueueModule} inside your Nest app,
 * {@link bootstrapActionQueueService} to run it as a service with your
 * handlers, and `ActionQueueClient` (entry `ordered-action-queue/client`) to
 * enqueue over HTTP from other services. Test helpers are in
 * `ordered-action-queue/testing`.
 *
 * @packageDocumentation
 */

// The module and its options.
export { ActionQueueModule } from './action-queue/action-queue.module';
export type { ActionQueueDatabaseOptions, ActionQueuePoolerOptions } from './database/queue-database-config';
export type {
  ActionQueueModuleAsyncOptions,
  ActionQueueModuleOptions,
  ActionQueueModuleRootOptions,
  ActionQueueRoutesOptions,
} from './action-queue/action-queue-options.interface';

// Handlers.
export { ActionHandler } from './handlers/action-handler.decorator';
export { ActionHandlerHost } from './handlers/action-handler.host';
export type { ActionContext, GroupState, QueuedAction } from './handlers/action-context.interface';
export type { ActionHandlerOptions, ChunkOptions } from './handlers/action-handler-options.interface';
export { MAX_CHUNK_SIZE } from './handlers/action-handler-options.interface';
export { ChunkHandlerHost, chunkDone, chunkFailed } from './handlers/chunk-handler.host';
export type { ChunkOutcome } from './handlers/chunk-handler.host';
export type { RecurringActionOptions } from './handlers/recurring-action-options.interface';
export { PermanentFailureError } from './handlers/permanent-failure.error';
export { RetryAfterError, MAX_BACK_OFF_MS } from './handlers/retry-after.error';
export type { BackOffOptions } from './handlers/retry-after.error';
export type { RateLimit } from './handlers/rate-limit';
export { HandlerTimeoutError } from './handlers/handler-timeout.error';
export { ActionFencedError } from './handlers/action-fenced.error';
export { ActionTransactionMisuseError } from './handlers/action-transaction-misuse.error';

// Enqueueing (and reading) in-process.
export { ActionQueue } from './actions/action-queue.contract';
export type { EnqueueInput, EnqueueResult, EnqueueTransaction, ListActionsFilter } from './actions/enqueue-input.interface';
export type {
  ActionCommandResource,
  ActionResource,
  AttemptResource,
  BoundedActionResource,
  ContentBytesResource,
  GroupPauseResource,
  GroupResource,
  GroupStoredStateSummary,
  StatsResource,
} from './actions/action.resource';
export type { QueueStats } from './actions/stats/queue-stats.reader';
export type { OtherTenantsStats, TenantStats, TenantsStats } from './actions/stats/tenant-stats.reader';
export type { ActionStatus, AttemptOutcome, FailurePolicy } from './vocabulary';

// Lifecycle events, in-process (after commit, at most once).
export { OnQueueEvent } from './events/on-queue-event.decorator';
export { QueueEvents } from './events/queue-events';
export type { QueueEventListener, QueueEventListenerOptions } from './events/queue-events';
export { QUEUE_EVENT_NAMES } from './events/queue-event-names';
export type { QueueEventName } from './events/queue-event-names';
export type {
  ActionCancelledEvent,
  ActionCompletedEvent,
  ActionFailedEvent,
  ActionRetriedEvent,
  GroupBlockedEvent,
  GroupUnblockedEvent,
  QueueEventBase,
  QueueEventPayloads,
} from './events/queue-event-payloads';

// Settings and the service starter.
export type { QueueSettings, ServiceSettings } from './config/settings';
export { bootstrapActionQueueService } from './service/action-queue-service.starter';
export type { ActionQueueServiceHandle, ActionQueueServiceImports, ActionQueueServiceOptions } from './service/action-queue-service.starter';
