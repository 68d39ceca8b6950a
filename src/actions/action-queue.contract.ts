import type { ActionCommandResource, AttemptResource, BoundedActionResource, GroupResource, StatsResource } from './action.resource';
import type { EnqueueInput, EnqueueResult, EnqueueTransaction, ListActionsFilter } from './enqueue-input.interface';

/**
 * Enqueues, reads and manages actions in-process: the twin of the REST API.
 * Inject it anywhere once {@link ActionQueueModule} is imported (it is the DI
 * token; the module provides the implementation).
 *
 * Pass your own transaction (an `EntityManager` or a `QueryRunner`) to make an
 * enqueue atomic with your writes (transactional outbox): the action exists,
 * and runs, only if that transaction commits.
 *
 * Errors are Nest HTTP exceptions, so a controller can let them through:
 * `BadRequestException` (400) naming the field, `ConflictException` (409),
 * `NotFoundException` (404), `ServiceUnavailableException` (503) when an
 * enqueue of its own kept losing lock conflicts (nothing was written).
 *
 * @example
 * ```ts
 * @Injectable()
 * export class InvoicesService {
 *   constructor(private readonly dataSource: DataSource, private readonly actions: ActionQueue) {}
 *
 *   send(invoice: Invoice) {
 *     return this.dataSource.transaction(async (manager) => {
 *       await manager.save(invoice);
 *       await this.actions.enqueue({ type: 'invoice.send', lockId: invoice.customerId, payload: { invoiceId: invoice.id } }, manager);
 *     });
 *   }
 * }
 * ```
 * @publicApi
 */
export abstract class ActionQueue {
  /**
   * Enqueues one action.
   * @param input the action; `type` must have a registered handler.
   * @param transaction run inside this transaction of yours (EntityManager or
   *   QueryRunner) instead of a new one: the action exists only if it commits.
   * @returns the action, and `created: false` if its idempotency key was already used
   *   (keys are remembered at least IDEMPOTENCY_WINDOW_DAYS after the first enqueue).
   * @throws BadRequestException naming the field (e.g. a `runAt` string without `Z` or
   *   an offset, a NUL character in a payload string, a type without a handler);
   *   ConflictException when the key was used for another type or lock id.
   */
  abstract enqueue(input: EnqueueInput, transaction?: EnqueueTransaction): Promise<EnqueueResult>;

  /**
   * Enqueues many actions, all or nothing. Within a group, input order is
   * processing order.
   * @param inputs 1..n actions.
   * @param transaction run inside this transaction of yours instead of a new one.
   * @returns one result per input, in input order.
   * @throws BadRequestException naming the field (`actions.3.type`) when any item is invalid; nothing is written.
   */
  abstract enqueueBatch(inputs: EnqueueInput[], transaction?: EnqueueTransaction): Promise<EnqueueResult[]>;

  /**
   * One action with its trace (one entry per ended attempt).
   * @param id the action id (decimal string).
   * @param options `content: false` reads it without its payload, result, last error and the
   *   trace's errors and stacks (`contentOmitted`, with `contentBytes`), which always fits.
   * @throws NotFoundException; PayloadTooLargeException when, with its content, it is over MAX_RESPONSE_BYTES.
   */
  abstract get(id: string, options?: { content?: boolean }): Promise<BoundedActionResource & { trace: AttemptResource[] }>;

  /**
   * A page of actions in id order; `nextCursor` (the `after` of the next page) is null on the last page.
   * An action whose content can never fit MAX_RESPONSE_BYTES is listed without it (`contentOmitted`).
   * @param query filters and page, with the values `GET /actions` accepts.
   */
  abstract list(query: ListActionsFilter): Promise<{ items: BoundedActionResource[]; nextCursor: string | null }>;

  /**
   * Cancels a pending or failed action (a cancelled head releases its group),
   * or requests the cancellation of a running one.
   * @param id the action id (decimal string).
   * @returns the action; without payload, result and error when these are over MAX_RESPONSE_BYTES (`contentOmitted`).
   * @throws NotFoundException; ConflictException from `done` or `cancelled`.
   */
  abstract cancel(id: string): Promise<ActionCommandResource>;

  /**
   * Retries a failed action: under `block` in place (pending again, still the
   * head, with a fresh budget of maxAttempts); under `skip` as a new action at
   * the group's tail, linked by `retryOf` (once per failed action).
   * @param id the action id (decimal string).
   * @returns the action (under `skip`, its copy); without payload, result and error when these are over MAX_RESPONSE_BYTES (`contentOmitted`).
   * @throws NotFoundException; ConflictException when not failed or already retried;
   *   PayloadTooLargeException when a `skip` action's payload is over the database's payload limit.
   */
  abstract retry(id: string): Promise<ActionCommandResource>;

  /**
   * A group's state: its head, whether it runs, how many wait, and whether
   * (and why) it is blocked.
   * @param lockId the group key (decimal string).
   * @throws BadRequestException for a malformed lock id.
   */
  abstract group(lockId: string): Promise<GroupResource>;

  /**
   * The state of the group a string key names, as {@link group} (its
   * `lockId` is the one the database interned the key under).
   * @param groupKey the string group key given at enqueue.
   * @throws BadRequestException for a malformed key; NotFoundException when no action ever used it.
   */
  abstract groupByKey(groupKey: string): Promise<GroupResource>;

  /** Queue-wide counts by status, the oldest pending age (s) and the number of blocked groups. */
  abstract stats(): Promise<StatsResource>;
}
