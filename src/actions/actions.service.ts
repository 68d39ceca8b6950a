import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  NotFoundException,
  PayloadTooLargeException,
  ServiceUnavailableException,
} from '@nestjs/common';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { QUEUE_DATA_SOURCE } from '../database/queue-data-source.token';
import { ActionHandlersRegistry } from '../handlers/action-handlers.registry';
import { groupDepthLimitOfDatabase } from '../group-depth-limits/group-depth-limit.error';
import { EnqueueMetrics } from '../metrics/enqueue-metrics';
import {
  ActionCommandResource,
  ActionResource,
  AttemptResource,
  GroupResource,
  StatsResource,
  toActionCommandResource,
  toActionResource,
  toAttemptResource,
} from './action.resource';
import { checkedByJsonBodyGuard, jsonBodyProblem, measuredPayloadText } from '../http/json-body-guard.middleware';
import { stringifyJson } from '../http/json-text';
import { BOTH_GROUP_NAMES, groupKeyProblem } from './dto/group-key.validator';
import { enqueueLockIdProblem, lockIdProblem } from './dto/lock-id.validator';
import { runAtProblem } from './dto/run-at.validator';
import { ActionQueue } from './action-queue.contract';
import { EnqueueInput, EnqueueResult, EnqueueTransaction, ListActionsFilter } from './enqueue-input.interface';
import { ActionRow } from './sql/action-columns.sql';
import { INSERT_ACTIONS_SQL, INTERN_GROUP_KEYS_SQL, SELECT_BY_IDEMPOTENCY_KEYS_SQL } from './sql/enqueue-actions.sql';
import {
  CANCEL_ACTION_SQL,
  LIST_ACTIONS_SQL,
  LIST_GROUP_ACTIONS_SQL,
  LOCK_FAILED_SKIP_SQL,
  NOTIFY_READY_SQL,
  RETRY_IN_PLACE_SQL,
  ACTION_RESOURCE_BYTES_SQL,
  pageSizesSql,
  SELECT_ACTION_SQL,
  SELECT_ACTIONS_BY_IDS_SQL,
  SELECT_BOUNDED_ACTION_SQL,
  SELECT_GROUP_KEY_LOCK_ID_SQL,
  SELECT_GROUP_SQL,
  SELECT_LOCK_ID_GROUP_KEY_SQL,
  SELECT_TRACE_SQL,
  ACTION_TRACE_BYTES_SQL,
} from './sql/manage-actions.sql';
import { readQueueStats } from './queue-stats.reader';

/** The EntityManager of a transaction given as an EntityManager or a QueryRunner. */
function managerOf(transaction: EnqueueTransaction | undefined): EntityManager | undefined {
  // Told apart by shape, not instanceof: the app may load its own copy of typeorm.
  const isQueryRunner = (t: EnqueueTransaction): t is QueryRunner => typeof (t as QueryRunner).startTransaction === 'function';
  return transaction !== undefined && isQueryRunner(transaction) ? transaction.manager : transaction;
}

/** A row a command (cancel, retry) returned: see COMMAND_RESULT_COLUMNS in sql/manage-actions.sql.ts. */
type CommandRow = ActionRow & { content_omitted: boolean };

/**
 * The rows of an `UPDATE ... RETURNING` run through `DataSource.query`: TypeORM
 * answers UPDATE and DELETE with `[rows, rowCount]`, every other statement with `rows`.
 */
function updatedRows<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}

/** Orders lock ids numerically, no group (null) last. */
function compareLockIds(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const x = BigInt(a),
    y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Whether `error` is a unique violation of the named constraint or index. */
function violates(error: unknown, constraint: string): boolean {
  const e = (error as { driverError?: { code?: string; constraint?: string } }).driverError ?? (error as { code?: string; constraint?: string });
  return e?.code === '23505' && e?.constraint === constraint;
}

/**
 * The 413 for an insert the database refused by its payload limit
 * (aq.max_payload_bytes, migration 014: SQLSTATE 54000), or null for any other error.
 * @param hint what the client or operator can do, after the database's message.
 */
function payloadLimitOfDatabase(
  error: unknown,
  hint = "the database's limit is below MAX_PAYLOAD_BYTES: raise aq.max_payload_bytes (docs/operations.md)",
): PayloadTooLargeException | null {
  const e = (error as { driverError?: { code?: string; message?: string } }).driverError ?? (error as { code?: string; message?: string });
  if (e?.code !== '54000' || !e.message?.includes('aq.max_payload_bytes')) return null;
  return new PayloadTooLargeException(`${e.message}; ${hint}`);
}

/** How often an enqueue transaction that lost a deadlock or serialization conflict is run again. */
const ENQUEUE_CONFLICT_RETRIES = 5;

/**
 * Runs `tx` again (up to {@link ENQUEUE_CONFLICT_RETRIES} times, after a short
 * random pause) when PostgreSQL rolled it back as a deadlock victim (40P01) or
 * a serialization failure (40001). A plain SQL producer inserting into several
 * groups locks them in its own row order, so an API batch can lose a deadlock
 * to it; the rolled-back batch wrote nothing, so running it again is safe.
 * @throws ServiceUnavailableException (503) when every try lost.
 */
async function retryOnConflict<T>(tx: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await tx();
    } catch (error) {
      const code = (error as { code?: string; driverError?: { code?: string } }).driverError?.code ?? (error as { code?: string }).code;
      if (code !== '40P01' && code !== '40001') throw error;
      if (attempt > ENQUEUE_CONFLICT_RETRIES) {
        // Not the client's fault and nothing was written: 503, never 500 (G8).
        throw new ServiceUnavailableException(`enqueue lost ${attempt} lock conflicts (${code}) with concurrent writers; nothing was written, retry`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 20 * attempt)));
    }
  }
}

/**
 * The {@link ActionQueue} on PostgreSQL: enqueues with the insert statement
 * of enqueue-actions.sql.ts (groups locked in lock_id order), reads and
 * manages actions with manage-actions.sql.ts. Injected by this class inside
 * the queue; apps inject ActionQueue, its public face.
 */
@Injectable()
export class ActionsService implements ActionQueue {
  constructor(
    @Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly registry: ActionHandlersRegistry,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly enqueueMetrics: EnqueueMetrics,
  ) {}

  async enqueue(input: EnqueueInput, transaction?: EnqueueTransaction): Promise<EnqueueResult> {
    const [result] = await this.insert([input], managerOf(transaction), () => '');
    return result;
  }

  enqueueBatch(inputs: EnqueueInput[], transaction?: EnqueueTransaction): Promise<EnqueueResult[]> {
    return this.insert(inputs, managerOf(transaction), (i) => `actions.${i}.`);
  }

  private async insert(inputs: EnqueueInput[], manager: EntityManager | undefined, prefix: (i: number) => string): Promise<EnqueueResult[]> {
    const items = inputs.map((input, i) => this.normalise(input, prefix(i)));
    const keys = items.map((it) => it.idempotencyKey).filter((k): k is string => k !== null);
    const seen = new Set<string>();
    keys.forEach((k) => {
      if (seen.has(k)) throw new BadRequestException([`actions: idempotencyKey "${k}" appears twice in one batch`]);
      seen.add(k);
    });
    const groupKeys = [...new Set(items.map((it) => it.groupKey).filter((k): k is string => k !== null))].sort();
    const run = async (m: EntityManager) => {
      // String keys are interned first (in key order, the same for every API
      // enqueue, so two batches' new keys cannot deadlock), so that every row
      // knows its lock id before any group is locked.
      const interned = new Map<string, string>();
      if (groupKeys.length > 0) {
        const rows: { group_key: string; lock_id: string }[] = await m.query(INTERN_GROUP_KEYS_SQL, [groupKeys]);
        rows.forEach((r) => interned.set(r.group_key, r.lock_id));
      }
      const lockIdOf = (it: (typeof items)[number]) => (it.groupKey !== null ? (interned.get(it.groupKey) as string) : it.lockId);
      // Rows go in lock_id order (stable, so each group keeps its input order):
      // the insert trigger then locks the batch's groups in lock_id order, the
      // order every other writer uses, so concurrent batches cannot deadlock.
      const order = items.map((_, i) => i).sort((a, b) => compareLockIds(lockIdOf(items[a]), lockIdOf(items[b])) || a - b);
      const sorted = order.map((i) => items[i]);
      const inserted: ActionRow[] = await m.query(INSERT_ACTIONS_SQL, [
        // A string-keyed row names both its key and its lock id; the trigger checks they agree.
        sorted.map(lockIdOf),
        sorted.map((it) => it.type),
        sorted.map((it) => it.payloadText),
        sorted.map((it) => it.runAt),
        sorted.map((it) => it.maxAttempts),
        sorted.map((it) => it.onFailure),
        sorted.map((it) => it.idempotencyKey),
        sorted.map(() => null),
        sorted.map((it) => it.groupKey),
      ]);
      const insertedKeys = new Set(inserted.map((r) => r.idempotency_key).filter((k) => k !== null));
      const missingKeys = keys.filter((k) => !insertedKeys.has(k));
      const existing = new Map<string, ActionRow>();
      if (missingKeys.length > 0) {
        const rows: ActionRow[] = await m.query(SELECT_BY_IDEMPOTENCY_KEYS_SQL, [missingKeys]);
        rows.forEach((r) => existing.set(r.idempotency_key as string, r));
      }
      // Ids grow in insertion (sorted) order within one statement.
      inserted.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
      const results: EnqueueResult[] = new Array(items.length);
      let next = 0;
      for (const i of order) {
        const it = items[i];
        if (it.idempotencyKey !== null && !insertedKeys.has(it.idempotencyKey)) {
          const prior = existing.get(it.idempotencyKey);
          if (!prior) throw new ConflictException(`${prefix(i)}idempotencyKey "${it.idempotencyKey}" is being used concurrently; retry`);
          const sameGroup = it.groupKey !== null ? prior.group_key === it.groupKey : prior.group_key === null && prior.lock_id === it.lockId;
          if (prior.type !== it.type || !sameGroup) {
            throw new ConflictException(
              `${prefix(i)}idempotencyKey "${it.idempotencyKey}" was already used for action ${prior.id} with another type or group (lockId, groupKey)`,
            );
          }
          results[i] = { action: toActionResource(prior), created: false };
        } else {
          results[i] = { action: toActionResource(inserted[next++]), created: true };
        }
      }
      return results;
    };
    const results = await (manager ? run(manager) : retryOnConflict(() => this.dataSource.transaction('READ COMMITTED', run))).catch((error: unknown) => {
      throw payloadLimitOfDatabase(error) ?? groupDepthLimitOfDatabase(error) ?? error;
    });
    this.enqueueMetrics.enqueued(results.filter((r) => r.created).map((r) => r.action.type));
    return results;
  }

  async get(id: string): Promise<ActionResource & { trace: AttemptResource[] }> {
    const [{ bytes: traceBytes }]: { bytes: string }[] = await this.dataSource.query(ACTION_TRACE_BYTES_SQL, [id]);
    const row = await this.readBounded(id, Number(traceBytes));
    if (!row) throw new NotFoundException(`action ${id} not found`);
    const trace = await this.dataSource.query(SELECT_TRACE_SQL, [id]);
    return { ...toActionResource(row), trace: trace.map(toAttemptResource) };
  }

  /**
   * A page in id order, bounded twice: at most `limit` rows, and rows only
   * while their payloads, results and errors add up to MAX_RESPONSE_BYTES
   * (sizes measured by PostgreSQL first, so no oversize row is fetched). A
   * page cut by bytes has fewer than `limit` items and a `nextCursor`.
   * @throws PayloadTooLargeException (413) when the page's first action alone is over MAX_RESPONSE_BYTES, naming it.
   */
  async list(query: ListActionsFilter): Promise<{ items: ActionResource[]; nextCursor: string | null }> {
    const limit = query.limit ?? 50;
    let lockId = query.lockId;
    if (query.groupKey !== undefined) {
      if (lockId !== undefined) throw new BadRequestException([BOTH_GROUP_NAMES]);
      const interned = await this.internedLockId(query.groupKey);
      // A key never used names an empty group.
      if (interned === null) return { items: [], nextCursor: null };
      lockId = interned;
    }
    const sql = lockId === undefined ? LIST_ACTIONS_SQL : LIST_GROUP_ACTIONS_SQL;
    const params = [query.status ?? null, lockId ?? null, query.type ?? null, query.after ?? '0', limit];
    const sizes: { id: string; bytes: string }[] = await this.dataSource.query(pageSizesSql(sql), params);
    const budget = this.settings.MAX_RESPONSE_BYTES;
    const ids: string[] = [];
    let total = 0;
    for (const { id, bytes } of sizes) {
      total += Number(bytes);
      if (total > budget) break;
      ids.push(id);
    }
    if (sizes.length > 0 && ids.length === 0) throw this.tooLargeToSend(sizes[0].id, Number(sizes[0].bytes), `; list past it with after=${sizes[0].id}`);
    const rows: ActionRow[] = ids.length > 0 ? await this.dataSource.query(SELECT_ACTIONS_BY_IDS_SQL, [ids]) : [];
    const cut = ids.length < sizes.length;
    return { items: rows.map(toActionResource), nextCursor: cut || sizes.length === limit ? ids[ids.length - 1] : null };
  }

  /**
   * One action, or null when it does not exist.
   * @param traceBytes bytes of its trace sent with it (ACTION_TRACE_BYTES_SQL), 0 when the trace is not sent.
   * @throws PayloadTooLargeException (413) when its payload, result and error (and trace) are over MAX_RESPONSE_BYTES.
   */
  private async readBounded(id: string, traceBytes = 0): Promise<ActionRow | null> {
    const [row]: ActionRow[] = await this.dataSource.query(SELECT_BOUNDED_ACTION_SQL, [id, this.settings.MAX_RESPONSE_BYTES - traceBytes]);
    if (row) return row;
    const [size]: { bytes: string }[] = await this.dataSource.query(ACTION_RESOURCE_BYTES_SQL, [id]);
    if (!size) return null;
    throw this.tooLargeToSend(id, Number(size.bytes) + traceBytes, '', traceBytes > 0);
  }

  private tooLargeToSend(id: string, bytes: number, hint: string, withTrace = false): PayloadTooLargeException {
    return new PayloadTooLargeException(
      `action ${id} holds ${bytes} bytes of payload, result${withTrace ? ', error and trace' : ' and error'}, over the ${this.settings.MAX_RESPONSE_BYTES}-byte limit of one response ` +
        `(MAX_RESPONSE_BYTES); read it by SQL${hint}`,
    );
  }

  /**
   * Cancels a pending or failed action, or requests the cancellation of a running one.
   * @returns the action; over MAX_RESPONSE_BYTES, without its payload, result and error (`contentOmitted`).
   * @throws NotFoundException (404), ConflictException (409) when done or cancelled already.
   */
  async cancel(id: string): Promise<ActionCommandResource> {
    const [row] = updatedRows<CommandRow>(await this.dataSource.query(CANCEL_ACTION_SQL, [id, this.settings.MAX_RESPONSE_BYTES]));
    if (row) return toActionCommandResource(row);
    throw await this.stateConflict(id, 'cancel', 'pending, running or failed');
  }

  /**
   * Retries a failed action: in place under `block`, as a copy at its group's tail under `skip`.
   * @returns the action (the copy under `skip`); over MAX_RESPONSE_BYTES, without its payload, result and error (`contentOmitted`).
   * @throws NotFoundException (404), ConflictException (409) when not failed or already retried.
   */
  async retry(id: string): Promise<ActionCommandResource> {
    const [inPlace] = updatedRows<CommandRow>(await this.dataSource.query(RETRY_IN_PLACE_SQL, [id, this.settings.MAX_RESPONSE_BYTES]));
    if (inPlace) {
      // The head is claimable again: wake the workers now rather than at their next poll.
      await this.dataSource.query(NOTIFY_READY_SQL);
      return toActionCommandResource(inPlace);
    }
    return this.dataSource.transaction('READ COMMITTED', async (m) => {
      const [failed]: (ActionRow & { retried_as: string | null })[] = await m.query(LOCK_FAILED_SKIP_SQL, [id]);
      // On the transaction's own connection: asking the pool for a second one
      // while holding this one can exhaust it under concurrent retries.
      if (!failed) throw await this.stateConflict(id, 'retry', 'failed', m);
      if (failed.retried_as) throw new ConflictException(`action ${id} was already retried as action ${failed.retried_as}`);
      // Whatever its depth (a SQL producer may store any): JSON.stringify would overflow the stack.
      const payloadText = stringifyJson(failed.payload) ?? '{}';
      try {
        const [copy]: ActionRow[] = await m.query(INSERT_ACTIONS_SQL, [
          [failed.lock_id],
          [failed.type],
          [payloadText],
          [null],
          [failed.max_attempts],
          [failed.on_failure],
          [null],
          [failed.id],
          // Both names of the group: the trigger accepts them when they agree.
          [failed.group_key],
        ]);
        // The copy has no result or error yet: its payload is all there is to bound.
        const contentOmitted = Buffer.byteLength(payloadText) > this.settings.MAX_RESPONSE_BYTES;
        return { ...toActionResource(contentOmitted ? { ...copy, payload: {} } : copy), contentOmitted };
      } catch (error) {
        // A concurrent retry committed its copy after our snapshot: the unique
        // index on retry_of is what makes "retried once" hold under races.
        if (violates(error, 'actions_retry_of_uq')) throw new ConflictException(`action ${id} was already retried`);
        // A payload stored before the limit (or past it by an operator) cannot be enqueued again: 413 naming the limit.
        throw (
          payloadLimitOfDatabase(error, `action ${id} was stored past the limit and cannot be enqueued again as it is (docs/operations.md)`) ??
          groupDepthLimitOfDatabase(error) ??
          error
        );
      }
    });
  }

  async group(lockId: string): Promise<GroupResource> {
    const problem = lockIdProblem(lockId);
    if (problem) throw new BadRequestException([`lockId ${problem}`]);
    const canonical = BigInt(lockId).toString();
    const [key]: { group_key: string }[] = await this.dataSource.query(SELECT_LOCK_ID_GROUP_KEY_SQL, [canonical]);
    return this.groupState(canonical, key?.group_key ?? null);
  }

  async groupByKey(groupKey: string): Promise<GroupResource> {
    const interned = await this.internedLockId(groupKey);
    if (interned === null) throw new NotFoundException(`groupKey ${JSON.stringify(groupKey)} has never been used`);
    return this.groupState(interned, groupKey);
  }

  /**
   * The lock id the database interned `groupKey` as, or null when the key was never used.
   * @throws BadRequestException (400) naming `groupKey` when it is not a valid key.
   */
  private async internedLockId(groupKey: string): Promise<string | null> {
    const problem = groupKeyProblem(groupKey);
    if (problem) throw new BadRequestException([`groupKey ${problem}`]);
    const [interned]: { lock_id: string }[] = await this.dataSource.query(SELECT_GROUP_KEY_LOCK_ID_SQL, [groupKey]);
    return interned?.lock_id ?? null;
  }

  /** The state of group `canonical` (a canonical lock id), named `groupKey` when it is string-keyed. */
  private async groupState(canonical: string, groupKey: string | null): Promise<GroupResource> {
    const [g]: { head_id: string | null; pending_count: number }[] = await this.dataSource.query(SELECT_GROUP_SQL, [canonical]);
    const empty: GroupResource = { lockId: canonical, groupKey, head: null, running: false, pendingCount: 0, blocked: false, blockedReason: null };
    if (!g) return empty;
    const headRow = g.head_id ? await this.readBounded(g.head_id) : null;
    const head = headRow ? toActionResource(headRow) : null;
    let blockedReason: string | null = null;
    if (head?.status === 'failed') {
      blockedReason = `head action ${head.id} failed after ${head.attempts} attempt(s): ${head.lastError ?? 'unknown error'}; retry or cancel it`;
    } else if (head?.status === 'pending' && !this.registry.has(head.type)) {
      blockedReason = `head action ${head.id} has type "${head.type}", which no handler of this instance runs`;
    }
    return {
      lockId: canonical,
      groupKey,
      head,
      running: head?.status === 'running',
      pendingCount: g.pending_count,
      blocked: blockedReason !== null,
      blockedReason,
    };
  }

  /**
   * Counts by status (some estimated on a large table, listed in `estimated`),
   * pending split into due / scheduled / behind a head, the age of the oldest
   * due action, blocked groups. See {@link readQueueStats}.
   */
  stats(): Promise<StatsResource> {
    return readQueueStats((sql, values) => this.dataSource.query(sql, values));
  }

  private normalise(input: EnqueueInput, field: string) {
    if (!this.registry.has(input.type)) {
      throw new BadRequestException([`${field}type "${input.type}" has no registered handler (known: ${this.registry.types().join(', ') || 'none'})`]);
    }
    let lockId: string | null = null;
    if (input.lockId !== undefined && input.lockId !== null) {
      const problem = enqueueLockIdProblem(input.lockId);
      if (problem) throw new BadRequestException([`${field}lockId ${problem}`]);
      lockId = BigInt(input.lockId).toString();
    }
    let groupKey: string | null = null;
    if (input.groupKey !== undefined && input.groupKey !== null) {
      const problem = groupKeyProblem(input.groupKey);
      if (problem) throw new BadRequestException([`${field}groupKey ${problem}`]);
      if (lockId !== null) throw new BadRequestException([`${field}${BOTH_GROUP_NAMES}`]);
      groupKey = input.groupKey;
    }
    const payload = input.payload ?? {};
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw new BadRequestException([`${field}payload must be a JSON object`]);
    }
    // The size first (one native pass), then the structural rules, so an
    // oversize payload is refused before any walk of it. JSON.stringify
    // overflows on a value nested thousands deep: the walk then says so.
    let payloadText = measuredPayloadText(payload);
    try {
      payloadText ??= JSON.stringify(payload);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
    }
    const size = payloadText === undefined ? 0 : Buffer.byteLength(payloadText);
    if (size > this.settings.MAX_PAYLOAD_BYTES) {
      throw new BadRequestException([`${field}payload is ${size} bytes; the limit is ${this.settings.MAX_PAYLOAD_BYTES} (MAX_PAYLOAD_BYTES)`]);
    }
    // The HTTP edge checked a request's payloads already (walked once); in-process
    // callers get the same rules (among them: no real NUL character in a string
    // or key; an escaped backslash followed by "u0000" is plain data).
    const problem = checkedByJsonBodyGuard(payload) ? null : jsonBodyProblem(payload);
    if (problem) throw new BadRequestException([`${field}payload: ${problem.replace(/^body /, '')}`]);
    if (payloadText === undefined) throw new BadRequestException([`${field}payload is nested too deeply to store`]);
    let runAt: string | null = null;
    if (input.runAt !== undefined && input.runAt !== null) {
      const runAtIssue = runAtProblem(input.runAt);
      if (runAtIssue) throw new BadRequestException([`${field}runAt ${runAtIssue}`]);
      runAt = new Date(input.runAt).toISOString();
    }
    const idempotencyKey = input.idempotencyKey ?? null;
    if (idempotencyKey !== null && (typeof idempotencyKey !== 'string' || idempotencyKey.includes('\u0000'))) {
      throw new BadRequestException([`${field}idempotencyKey must be a string without the NUL character`]);
    }
    return {
      lockId,
      groupKey,
      type: input.type,
      payloadText,
      runAt,
      // A handler's cap is written at once, so the number shown is the number enforced.
      maxAttempts: Math.min(input.maxAttempts ?? this.settings.DEFAULT_MAX_ATTEMPTS, this.registry.get(input.type)?.options.maxAttempts ?? Infinity),
      onFailure: input.onFailure ?? 'block',
      idempotencyKey,
    };
  }

  /**
   * The error for an action that is not in a state `verb` accepts: 404 when it
   * does not exist, else 409 naming its status and the allowed ones.
   * @param on where to read the action: inside a transaction, its EntityManager
   *   (never a second pool connection while one is held); else the DataSource.
   */
  private async stateConflict(id: string, verb: string, allowed: string, on: Pick<EntityManager, 'query'> = this.dataSource): Promise<Error> {
    const [row]: ActionRow[] = await on.query(SELECT_ACTION_SQL, [id]);
    if (!row) return new NotFoundException(`action ${id} not found`);
    return new ConflictException(
      `cannot ${verb} action ${id}: it is ${row.status}${row.status === 'failed' ? ` (policy ${row.on_failure})` : ''}; allowed from ${allowed}`,
    );
  }
}
