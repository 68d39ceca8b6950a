import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Pool } from 'pg';
import { QueueSettings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { AdaptiveBatchSize } from '../database/adaptive-batch-size';
import { PG_POOL } from '../database/pg-pool.provider';
import { isStatementTimeout } from '../database/statement-timeout';
import { JOB_STOP_TIMEOUT_MS, shutdownStep } from '../shutdown-steps';
import { sleep } from '../sleep';
import { DELETE_EMPTY_GROUPS_SQL, LOCK_EMPTY_GROUPS_SQL } from './sql/delete-empty-groups.sql';
import { DELETE_EXPIRED_ACTIONS_SQL } from './sql/delete-expired-actions.sql';
import { DELETE_STALE_GROUP_STATES_SQL } from './sql/delete-stale-group-states.sql';

/** Rows deleted per statement (and per transaction), unless the statement_timeout asks for fewer. */
export const RETENTION_BATCH_SIZE = 1_000;
/** Empty groups removed per transaction: each is locked until its commit, so few. */
export const GROUP_PURGE_BATCH_SIZE = 100;
/**
 * Timeouts in a row at one row per statement that are retried: a new
 * session's first statement also plans and compiles the delete triggers
 * (measured 15-24 ms for one row against a DBA's 20 ms limit, then 1-3 ms),
 * and each cancelled run leaves more of that cached (AdaptiveBatchSize).
 * With {@link RETRY_DELAY_MS} the retries span 50 + 100 + ... + 1 600 =
 * 3.15 s: a stall of the server (a checkpoint's fsync, a DBA's lock) shorter
 * than that no longer ends the run (a CI run lost all 9 immediate retries of
 * 3 runs to one).
 */
const RETRIES_AT_ONE_ROW = 6;
/** The wait before the first retry at one row (ms); it doubles with each timeout in a row. */
const RETRY_DELAY_MS = 50;

/**
 * Deletes finished actions (done, cancelled, failed under `skip`) and their
 * trace once they are older than RETENTION_DAYS by finished_at, except those
 * whose idempotency key is younger than IDEMPOTENCY_WINDOW_DAYS (the key must
 * keep deduplicating), then the lock rows and head records of groups left
 * with no action at all; then the stored group states (ctx.groupState) left
 * unchanged for GROUP_STATE_RETENTION_DAYS in groups with no work. Runs every
 * RETENTION_INTERVAL_MS on instances with the worker enabled, never
 * overlapping itself; RETENTION_DAYS=0 keeps every action, and
 * GROUP_STATE_RETENTION_DAYS=0 every state.
 * Several instances may run it at once (SKIP LOCKED).
 *
 * Chunks fit a short statement_timeout (a DBA's `ALTER DATABASE … SET
 * statement_timeout`): a batch the server cancels (57014) is retried at once
 * with half as many rows, down to one, and batches grow back while they
 * complete (AdaptiveBatchSize); nothing of a cancelled batch was deleted.
 */
@Injectable()
export class RetentionService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RetentionService.name);
  private running: Promise<number> | null = null;
  private statesRunning: Promise<number> | null = null;
  private stopping = false;
  // Its own timer, not the SchedulerRegistry the schedule ticker uses: a firing during a run joins it
  // (purge()), and shutdown awaits that run here; the registry would add a shared name and nothing else.
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SETTINGS) private readonly settings: QueueSettings,
  ) {}

  onApplicationBootstrap(): void {
    if ((this.settings.RETENTION_DAYS === 0 && this.settings.GROUP_STATE_RETENTION_DAYS === 0) || !this.settings.WORKER_ENABLED) return;
    const tick = () =>
      void this.purge()
        .then(() => (this.stopping ? 0 : this.purgeGroupStates()))
        .catch((error: Error) => this.logger.warn(`Retention failed (will retry): ${error.message}`));
    this.timer = setInterval(tick, this.settings.RETENTION_INTERVAL_MS);
    tick();
  }

  /**
   * Stops the timer and waits for a run in flight (it stops after its current
   * batch), at most JOB_STOP_TIMEOUT_MS: on a database that stopped answering
   * its statement would never end. A batch left behind is rolled back when
   * the pool closes; nothing of it was deleted.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    if (this.running) await shutdownStep('retention: run in flight', this.running, JOB_STOP_TIMEOUT_MS, this.logger);
    if (this.statesRunning) await shutdownStep('retention: group states in flight', this.statesRunning, JOB_STOP_TIMEOUT_MS, this.logger);
  }

  /**
   * Deletes every expired finished action, one batch per statement (each its
   * own short transaction), until a batch comes back short; then removes the
   * groups left empty ({@link purgeEmptyGroups}). A call while a run is in
   * progress joins it.
   *
   * @param days retention in days (default RETENTION_DAYS); must be > 0.
   * @param windowDays idempotency window in days (default IDEMPOTENCY_WINDOW_DAYS):
   *   an action whose key was enqueued more recently is kept.
   * @returns how many actions were deleted.
   */
  purge(days = this.settings.RETENTION_DAYS, windowDays = this.settings.IDEMPOTENCY_WINDOW_DAYS): Promise<number> {
    if (days <= 0) return Promise.resolve(0);
    this.running ??= this.purgeAll(days, windowDays).finally(() => (this.running = null));
    return this.running;
  }

  /**
   * Removes the lock rows and head records of groups that hold nothing (no
   * action row with that lock_id), at most {@link GROUP_PURGE_BATCH_SIZE}
   * per short transaction, walking the groups once in lock_id order. Safe
   * against a concurrent enqueue into such a group: see
   * src/retention/sql/delete-empty-groups.sql.ts.
   *
   * @returns how many group rows were deleted.
   */
  async purgeEmptyGroups(): Promise<number> {
    let total = 0;
    let after: string | null = null;
    const batch = new AdaptiveBatchSize(GROUP_PURGE_BATCH_SIZE, 1, RETRIES_AT_ONE_ROW, RETRY_DELAY_MS);
    for (;;) {
      const client = await this.pool.connect();
      let locked: string[];
      let broken: Error | undefined;
      const size = batch.size;
      try {
        await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
        const { rows } = await client.query<{ lock_id: string }>({ text: LOCK_EMPTY_GROUPS_SQL, values: [after, size] });
        locked = rows.map((r) => r.lock_id);
        if (locked.length > 0) {
          const { rowCount } = await client.query({ text: DELETE_EMPTY_GROUPS_SQL, values: [locked] });
          total += rowCount ?? 0;
        }
        await client.query('COMMIT');
      } catch (error) {
        // A connection that cannot even roll back is dropped, not pooled.
        broken = await client.query('ROLLBACK').then(
          () => undefined,
          (e: Error) => e,
        );
        if (isStatementTimeout(error) && batch.timedOut() && !this.stopping) {
          await sleep(batch.retryDelayMs);
          continue;
        }
        throw error;
      } finally {
        client.release(broken);
      }
      batch.succeeded();
      if (locked.length < size || this.stopping) break;
      after = locked[locked.length - 1];
    }
    return total;
  }

  /**
   * Deletes the stored group states (ctx.groupState) unchanged for more than
   * `days` days whose group has no pending or running action, a batch per
   * statement until one comes back short.
   * @param days GROUP_STATE_RETENTION_DAYS by default; 0 or less deletes nothing.
   * @returns how many states were deleted.
   */
  purgeGroupStates(days = this.settings.GROUP_STATE_RETENTION_DAYS): Promise<number> {
    if (days <= 0) return Promise.resolve(0);
    // Tracked like purge(), so that shutdown waits for a run in flight instead of closing the pool under it.
    this.statesRunning ??= this.purgeStates(days).finally(() => (this.statesRunning = null));
    return this.statesRunning;
  }

  private async purgeStates(days: number): Promise<number> {
    let total = 0;
    for (;;) {
      const { rows } = await this.pool.query<{ deleted: number }>({ text: DELETE_STALE_GROUP_STATES_SQL, values: [days, GROUP_PURGE_BATCH_SIZE] });
      total += rows[0].deleted;
      if (rows[0].deleted < GROUP_PURGE_BATCH_SIZE || this.stopping) break;
    }
    if (total > 0) this.logger.log(`Retention: deleted ${total} group state(s) unchanged for over ${days} day(s) in groups with no work`);
    return total;
  }

  private async purgeAll(days: number, windowDays: number): Promise<number> {
    let total = 0;
    let from = '-infinity';
    const batch = new AdaptiveBatchSize(RETENTION_BATCH_SIZE, 1, RETRIES_AT_ONE_ROW, RETRY_DELAY_MS);
    for (;;) {
      const size = batch.size;
      let rows: { picked: number; deleted: number; last_finished_at: string | null }[];
      try {
        ({ rows } = await this.pool.query<{ picked: number; deleted: number; last_finished_at: string | null }>({
          text: DELETE_EXPIRED_ACTIONS_SQL,
          values: [days, size, windowDays, from],
        }));
      } catch (error) {
        if (isStatementTimeout(error) && batch.timedOut() && !this.stopping) {
          await sleep(batch.retryDelayMs);
          continue;
        }
        throw error;
      }
      batch.succeeded();
      total += rows[0].deleted;
      // A short batch means the scan reached the end; a batch that deleted
      // nothing would not move the cursor.
      if (rows[0].picked < size || rows[0].deleted === 0 || rows[0].last_finished_at === null || this.stopping) break;
      from = rows[0].last_finished_at;
    }
    const groups = this.stopping ? 0 : await this.purgeEmptyGroups();
    if (total > 0 || groups > 0) {
      this.logger.log(`Retention: deleted ${total} finished action(s) older than ${days} day(s) and ${groups} empty group(s)`);
    }
    return total;
  }
}
