import { groupDepthLimitOfDatabase } from '../group-depth-limit.error';
import { BadRequestException, ConflictException, Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { QUEUE_DATA_SOURCE } from '../../database/queue-data-source.token';
import { ActionHandlersRegistry } from '../../handlers/action-handlers.registry';
import { EnqueueMetrics } from '../../metrics/enqueue-metrics';
import { toActionResource } from '../action.resource';
import { groupTenantConflictOfDatabase, payloadLimitOfDatabase } from '../database-errors';
import { EnqueueInput, EnqueueResult, EnqueueTransaction } from '../enqueue-input.interface';
import { ActionRow } from '../sql/action-columns.sql';
import { INSERT_ACTIONS_SQL, INTERN_GROUP_KEYS_SQL, SELECT_BY_IDEMPOTENCY_KEYS_SQL } from '../sql/enqueue-actions.sql';
import { retryOnConflict } from './enqueue-conflict.retry';
import { traceparentToStore } from '../../tracing/traceparent';
import { EnqueueRules, NormalisedEnqueueInput, normaliseEnqueueInput, repeatedIdempotencyKeyProblem } from './enqueue-input.normaliser';

/** The EntityManager of a transaction given as an EntityManager or a QueryRunner. */
function managerOf(transaction: EnqueueTransaction | undefined): EntityManager | undefined {
  // Told apart by shape, not instanceof: the app may load its own copy of typeorm.
  const isQueryRunner = (t: EnqueueTransaction): t is QueryRunner => typeof (t as QueryRunner).startTransaction === 'function';
  return transaction !== undefined && isQueryRunner(transaction) ? transaction.manager : transaction;
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

/**
 * Enqueues: normalises the inputs (enqueue-input.normaliser.ts), then runs the
 * insert statement of enqueue-actions.sql.ts in the caller's transaction or a
 * new one (groups locked in lock_id order, idempotency keys answered with the
 * existing action), and counts what it created.
 */
@Injectable()
export class ActionEnqueuer {
  private readonly rules: EnqueueRules;

  constructor(
    @Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource,
    registry: ActionHandlersRegistry,
    @Inject(SETTINGS) settings: QueueSettings,
    private readonly enqueueMetrics: EnqueueMetrics,
  ) {
    this.rules = {
      hasHandler: (type) => registry.has(type),
      knownTypes: () => registry.types(),
      handlerMaxAttempts: (type) => registry.get(type)?.options.maxAttempts,
      maxPayloadBytes: settings.MAX_PAYLOAD_BYTES,
      defaultMaxAttempts: settings.DEFAULT_MAX_ATTEMPTS,
    };
  }

  /**
   * One action: see {@link ActionQueue.enqueue}.
   * @param traceparentHeader a REST request's `traceparent` header: stored when
   *   no span is active and it is valid (traceparentToStore).
   */
  async enqueue(input: EnqueueInput, transaction?: EnqueueTransaction, traceparentHeader?: string): Promise<EnqueueResult> {
    const [result] = await this.insert([input], managerOf(transaction), () => '', traceparentHeader);
    return result;
  }

  /** Many actions, all or nothing: see {@link ActionQueue.enqueueBatch}; `traceparentHeader` as for {@link enqueue}. */
  enqueueBatch(inputs: EnqueueInput[], transaction?: EnqueueTransaction, traceparentHeader?: string): Promise<EnqueueResult[]> {
    return this.insert(inputs, managerOf(transaction), (i) => `actions.${i}.`, traceparentHeader);
  }

  private async insert(
    inputs: EnqueueInput[],
    manager: EntityManager | undefined,
    prefix: (i: number) => string,
    traceparentHeader: string | undefined,
  ): Promise<EnqueueResult[]> {
    // Read here, in the caller's async context, where its active span is.
    const traceparent = traceparentToStore(traceparentHeader);
    const items = inputs.map((input, i) => {
      const normalised = normaliseEnqueueInput(input, prefix(i), this.rules);
      if (normalised.problem !== undefined) throw new BadRequestException([normalised.problem]);
      return normalised.input;
    });
    const repeated = repeatedIdempotencyKeyProblem(items);
    if (repeated) throw new BadRequestException([repeated]);
    const keys = items.map((it) => it.idempotencyKey).filter((k): k is string => k !== null);
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
      const lockIdOf = (it: NormalisedEnqueueInput) => (it.groupKey !== null ? (interned.get(it.groupKey) as string) : it.lockId);
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
        traceparent,
        sorted.map((it) => it.tenant),
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
      throw payloadLimitOfDatabase(error) ?? groupDepthLimitOfDatabase(error) ?? groupTenantConflictOfDatabase(error) ?? error;
    });
    this.enqueueMetrics.enqueued(results.filter((r) => r.created).map((r) => r.action.type));
    return results;
  }
}
