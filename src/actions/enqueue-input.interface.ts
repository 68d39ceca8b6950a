import type { EntityManager, QueryRunner } from 'typeorm';
import type { FailurePolicy } from '../vocabulary';
import type { ActionResource } from './action.resource';

/**
 * What to enqueue: the fields of the REST body `POST /actions`.
 * @publicApi
 */
export interface EnqueueInput {
  /** The action type; a handler must be registered for it. 1..200 characters of letters, digits, `.`, `_`, `-`, `:`. */
  type: string;
  /**
   * The group: a signed 64-bit integer as a decimal string, or a safe JSON
   * integer. Actions of one group run one at a time in enqueue order.
   * null or absent: no group. The lowest 2^48 values (up to
   * -9223090561878065153) are reserved for string group keys.
   */
  lockId?: string | number | null;
  /**
   * The group, named by a string (a UUID, `tenant:42`): 1..255 bytes of UTF-8,
   * no NUL, compared byte for byte. The database gives each distinct key a
   * group of its own. Give `lockId` or `groupKey`, not both.
   */
  groupKey?: string | null;
  /** JSON object handed to the handler, at most MAX_PAYLOAD_BYTES serialised. Default `{}`. */
  payload?: Record<string, unknown>;
  /**
   * Not claimable before this instant: a `Date`, or an ISO 8601 date and time
   * with `Z` or a UTC offset (a string without one is refused: it would mean
   * another instant on a server in another time zone). Default now.
   */
  runAt?: string | Date | null;
  /** Executions allowed before the action fails, 1..100. Default DEFAULT_MAX_ATTEMPTS (5). */
  maxAttempts?: number;
  /** What a final failure does to the group: `block` (default) holds it until retried or cancelled, `skip` lets it move on. */
  onFailure?: FailurePolicy;
  /**
   * Enqueue at most once per key (1..200 characters): a repeat within
   * IDEMPOTENCY_WINDOW_DAYS of the first enqueue returns the existing action
   * with `created: false`.
   */
  idempotencyKey?: string;
  /**
   * The tenant it belongs to (docs/tenants.md): 1..128 characters of letters,
   * digits, `.`, `_`, `:`, `@`, `-`, starting with a letter or a digit.
   * Absent or null: the tenant `default`. A group holds one tenant's work at
   * a time: an action for a group holding another tenant's pending or running
   * work is refused (ConflictException, 409 over REST).
   */
  tenant?: string | null;
}

/**
 * An enqueued action and whether this call created it.
 * @publicApi
 */
export interface EnqueueResult {
  /** The action as stored (the resource of the REST API). */
  action: ActionResource;
  /** false when an `idempotencyKey` matched an existing action, which is returned instead. */
  created: boolean;
}

/**
 * Filters of {@link ActionQueue.list}, as the query of `GET /actions`.
 * @publicApi
 */
export interface ListActionsFilter {
  /** Only actions in this status. */
  status?: ActionResource['status'];
  /** Only this group (decimal string). */
  lockId?: string;
  /** Only this string-keyed group (not with `lockId`). */
  groupKey?: string;
  /** Only this action type. */
  type?: string;
  /** Page size, 1..500. Default 50. */
  limit?: number;
  /** Cursor: the last id of the previous page (decimal string). */
  after?: string;
}

/**
 * A transaction of the caller to enqueue in: TypeORM's `EntityManager` (as
 * given by `dataSource.transaction(manager => ...)`) or a `QueryRunner` with a
 * transaction started. It must be on the queue's database.
 * @publicApi
 */
export type EnqueueTransaction = EntityManager | QueryRunner;
