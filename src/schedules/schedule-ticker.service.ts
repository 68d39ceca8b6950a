import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { Pool, PoolClient } from 'pg';
import { QueueSettings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { PG_POOL } from '../database/pg-pool.provider';
import { ActionHandlersRegistry } from '../handlers/action-handlers.registry';
import { JOB_STOP_TIMEOUT_MS, shutdownStep } from '../shutdown-steps';
import { parseCron, planTicks } from './schedule-plan';
import { SCHEDULE_POLL_INTERVAL_MS, SCHEDULES_PER_ROUND } from './schedule-defaults';
import { checkSchedule, scheduleValues } from './schedule-input';
import { ScheduleRow } from './schedule.resource';
import {
  ADVANCE_SCHEDULE_SQL,
  CLAIM_TICK_SQL,
  DB_NOW_SQL,
  INSERT_TICK_ACTION_SQL,
  LOCK_DUE_SCHEDULE_SQL,
  NEXT_DUE_SQL,
  RECORD_TICK_SQL,
  UPSERT_CODE_SCHEDULE_SQL,
} from './sql/schedules.sql';

/** A schedule whose expression no longer parses (written by SQL) is looked at again after this long (ms). */
const BROKEN_SCHEDULE_RETRY_MS = 60_000;

/**
 * The ticker's entries in Nest's SchedulerRegistry: the poll (an interval of
 * SCHEDULE_POLL_INTERVAL_MS) and the one-shot wake-up for a nearer tick. The
 * registry is the app's when it has one (schedules.module.ts), hence the
 * package prefix.
 */
export const SCHEDULE_TICKER_POLL = 'ordered-action-queue:schedule-ticker:poll';
/** See {@link SCHEDULE_TICKER_POLL}. */
export const SCHEDULE_TICKER_WAKE = 'ordered-action-queue:schedule-ticker:wake';

/**
 * Enqueues the due ticks of every recurring action (src/database/sql/036-recurring-actions.up.sql).
 * On start-up it writes the schedules handlers declare (`recurring` option);
 * then, never overlapping itself, it takes one due schedule at a time
 * (FOR UPDATE SKIP LOCKED, so instances share the work), plans its ticks
 * (schedule-plan.ts, the catch-up policy) and, in the same transaction,
 * claims each tick's primary key and inserts its action: a tick has exactly
 * one action across every instance, however the instances' timers fire.
 *
 * Timing is @nestjs/schedule's; the database keeps the once-per-tick
 * guarantee. An interval of SCHEDULE_POLL_INTERVAL_MS in the
 * SchedulerRegistry sees a schedule created elsewhere within that time; a
 * one-shot timeout in the registry, set when a round finds the nearest tick
 * sooner, enqueues that tick on time. The registry's timers never wait for a
 * callback to settle (neither does @Interval), so a firing while a round runs
 * is skipped: rounds never overlap. Not one CronJob per schedule: schedules
 * are rows that any instance or SQL may change, and the database already
 * says which is due. The cron arithmetic is the `cron` package's, the one
 * @nestjs/schedule uses.
 */
@Injectable()
export class ScheduleTicker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ScheduleTicker.name);
  private running: Promise<void> | null = null;
  private stopping = false;
  private readonly scheduler: SchedulerRegistry;

  /**
   * @param appScheduler the app's SchedulerRegistry (ScheduleModule.forRoot()
   *   in the app, as the service has); absent, the ticker keeps its own.
   */
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SETTINGS) private readonly settings: QueueSettings,
    private readonly registry: ActionHandlersRegistry,
    @Optional() appScheduler?: SchedulerRegistry,
  ) {
    this.scheduler = appScheduler ?? new SchedulerRegistry();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.writeCodeSchedules();
    // Like the reaper and retention: background work of the worker instances only.
    if (!this.settings.WORKER_ENABLED) return;
    this.scheduler.addInterval(
      SCHEDULE_TICKER_POLL,
      setInterval(() => this.tick(), SCHEDULE_POLL_INTERVAL_MS),
    );
    this.tick();
  }

  /**
   * Stops the ticker and waits for a round in flight, at most
   * JOB_STOP_TIMEOUT_MS: a round's statements have no client-side timeout, so
   * on a connection to a database that stopped answering (a partition) it
   * would never end. One left behind is rolled back when the pool closes: its
   * ticks stay due for the next instance.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    // ScheduleModule clears its entries at shutdown too, in an order of its own: either may go first.
    if (this.scheduler.doesExist('interval', SCHEDULE_TICKER_POLL)) this.scheduler.deleteInterval(SCHEDULE_TICKER_POLL);
    this.cancelWake();
    if (this.running) await shutdownStep('schedule ticker: round in flight', this.running, JOB_STOP_TIMEOUT_MS, this.logger);
  }

  /**
   * Writes every schedule the handlers declare. Their cursor survives a
   * restart when cron and time zone are unchanged, so missed ticks follow the
   * catch-up policy. A runtime schedule of the same name wins (logged).
   * @throws Error at start-up naming the handler and the invalid field.
   */
  private async writeCodeSchedules(): Promise<void> {
    const declared = this.registry.types().flatMap((type) => (this.registry.get(type)?.options.recurring ?? []).map((r) => ({ ...r, type })));
    if (declared.length === 0) return;
    const [{ db_now }]: { db_now: Date }[] = (await this.pool.query(DB_NOW_SQL)).rows;
    for (const schedule of declared) {
      const checked = checkSchedule(schedule);
      if ('problems' in checked) throw new Error(`Invalid recurring option of handler "${schedule.type}": ${checked.problems.join('; ')}`);
      const { rowCount } = await this.pool.query(UPSERT_CODE_SCHEDULE_SQL, scheduleValues(checked.params, 'code', db_now));
      if (rowCount === 0)
        this.logger.warn(`recurring "${schedule.name}" of handler "${schedule.type}" is not written: a schedule of that name was created at runtime`);
    }
  }

  /** Starts a round unless one is running (it then decides the next wake-up itself) or the service stops. */
  private tick(): void {
    if (this.running || this.stopping) return;
    this.cancelWake();
    this.running = this.round()
      .catch((error: unknown) => {
        this.logger.warn(`recurring actions: round failed, retried at the next poll: ${(error as Error).message}`);
        return SCHEDULE_POLL_INTERVAL_MS;
      })
      .then((next) => {
        this.running = null;
        // The poll comes within SCHEDULE_POLL_INTERVAL_MS anyway; a nearer tick gets its own wake-up.
        if (next < SCHEDULE_POLL_INTERVAL_MS && !this.stopping)
          this.scheduler.addTimeout(
            SCHEDULE_TICKER_WAKE,
            setTimeout(() => this.tick(), next),
          );
      });
  }

  private cancelWake(): void {
    if (this.scheduler.doesExist('timeout', SCHEDULE_TICKER_WAKE)) this.scheduler.deleteTimeout(SCHEDULE_TICKER_WAKE);
  }

  /**
   * Handles due schedules; returns the ms until the next round. It first asks
   * for the earliest cursor (one cheap statement, NEXT_DUE_SQL) and opens the
   * locking transaction only when a schedule is due, so the round of an
   * instance with nothing due, every SCHEDULE_POLL_INTERVAL_MS, is that one
   * statement instead of four (BEGIN, the lock, COMMIT, the cursor).
   */
  async round(): Promise<number> {
    let next = await this.nextDue();
    if (next.next_tick_at !== null && next.next_tick_at.getTime() <= next.db_now.getTime()) {
      for (let i = 0; i < SCHEDULES_PER_ROUND && !this.stopping; i++) {
        if (!(await this.handleOneDue())) break;
      }
      next = await this.nextDue();
    }
    if (next.next_tick_at === null) return SCHEDULE_POLL_INTERVAL_MS;
    return Math.max(0, Math.min(SCHEDULE_POLL_INTERVAL_MS, next.next_tick_at.getTime() - next.db_now.getTime()));
  }

  private async nextDue(): Promise<{ next_tick_at: Date | null; db_now: Date }> {
    return (await this.pool.query<{ next_tick_at: Date | null; db_now: Date }>(NEXT_DUE_SQL)).rows[0];
  }

  /** Locks one due schedule and enqueues its planned ticks; false when none is due. */
  private async handleOneDue(): Promise<boolean> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
      const [row]: (ScheduleRow & { db_now: Date })[] = (await client.query(LOCK_DUE_SCHEDULE_SQL)).rows;
      if (!row) {
        await client.query('COMMIT');
        return false;
      }
      await this.enqueueDueTicks(client, row);
      await client.query('COMMIT');
      return true;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  private async enqueueDueTicks(client: PoolClient, row: ScheduleRow & { db_now: Date }): Promise<void> {
    let plan;
    try {
      plan = planTicks(parseCron(row.cron, row.time_zone), row.next_tick_at, row.db_now, {
        catchUp: row.catch_up,
        limit: row.catch_up_limit,
        misfireGraceMs: row.misfire_grace_ms,
      });
    } catch (error) {
      const retryAt = new Date(row.db_now.getTime() + BROKEN_SCHEDULE_RETRY_MS);
      await client.query(ADVANCE_SCHEDULE_SQL, [row.name, retryAt, null, 0, `cron or time zone invalid: ${(error as Error).message}`]);
      return;
    }
    let newest: Date | null = null;
    let lastError: string | null = null;
    for (const tick of plan.enqueue) {
      const claimed = (await client.query(CLAIM_TICK_SQL, [row.name, tick])).rowCount === 1;
      if (!claimed) continue;
      newest = tick;
      // A refused insert (maximum group depth, payload limit, a group key in the
      // reserved range) spends its tick with the error, not the whole round.
      await client.query('SAVEPOINT tick_action');
      try {
        const maxAttempts = row.max_attempts ?? this.settings.DEFAULT_MAX_ATTEMPTS;
        const [action]: { id: string }[] = (
          await client.query(INSERT_TICK_ACTION_SQL, [row.lock_id, row.group_key, row.type, JSON.stringify(row.payload), maxAttempts])
        ).rows;
        await client.query('RELEASE SAVEPOINT tick_action');
        await client.query(RECORD_TICK_SQL, [row.name, tick, action.id, null]);
      } catch (error) {
        await client.query('ROLLBACK TO SAVEPOINT tick_action');
        lastError = `tick ${tick.toISOString()}: ${(error as Error).message}`;
        await client.query(RECORD_TICK_SQL, [row.name, tick, null, lastError]);
        this.logger.warn(`recurring "${row.name}": ${lastError}`);
      }
    }
    if (plan.skipped > 0) this.logger.warn(`recurring "${row.name}": ${plan.skipped} missed tick(s) skipped by its catch-up policy (${row.catch_up})`);
    await client.query(ADVANCE_SCHEDULE_SQL, [row.name, plan.next, newest, plan.skipped, lastError]);
  }
}
