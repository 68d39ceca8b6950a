/**
 * `ordered-action-queue/client`: a typed HTTP client for producers in other
 * Node services. It loads no NestJS, TypeORM or PostgreSQL code.
 *
 * @packageDocumentation
 */
export { ActionQueueClient } from './action-queue.client';
export type {
  Action,
  ActionCommandResult,
  ActionGroup,
  ActionQueueCallOptions,
  ActionQueueClientOptions,
  ActionsPage,
  ActionWithTrace,
  ListActionsParams,
  NewAction,
  QueueStats,
} from './action-queue.client';
export { ActionQueueHttpError, ActionQueueNetworkError } from './action-queue-client.errors';
export type { components, operations, paths } from './generated/openapi';
