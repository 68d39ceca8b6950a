import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Pool, QueryConfig } from 'pg';
import { Counter, Gauge } from 'prom-client';
import { PG_POOL } from '../database/pg-pool.provider';
import { MetricsRegistry } from '../metrics/metrics.registry';
import { MVCC_HORIZON_SQL, TABLE_HEALTH_SQL } from './sql/table-health.sql';

/** Longest a scrape waits for the statistics views (ms); the gauges keep their last values after it. */
const STATS_TIMEOUT_MS = 2_000;

/**
 * Reads shared by the gauges of one scrape: prom-client collects each gauge
 * separately, so the first one starts the two queries and the others await
 * them; a scrape more than this long after (ms) reads again.
 */
const SCRAPE_SHARE_MS = 500;

interface TableHealthRow {
  table_name: string;
  live: number;
  dead: number;
  inserted: number;
  updated: number;
  hot_updated: number;
  deleted: number;
}
interface HorizonRow {
  xids: number;
  seconds: number;
}

/**
 * MVCC pressure on the queue's tables, refreshed on each `/metrics` scrape
 * (docs/mvcc-pressure.md says what to watch):
 * - `action_queue_table_dead_tuples{table}` / `action_queue_table_live_tuples{table}`:
 *   row versions waiting for vacuum, and live rows, per queue table
 *   (pg_stat_user_tables n_dead_tup / n_live_tup).
 * - `action_queue_table_tuples_updated{table}` / `action_queue_table_tuples_hot_updated{table}`
 *   / `action_queue_table_tuples_deleted{table}`: rows updated since the
 *   statistics were reset, all and heap-only (no index entry), and rows
 *   deleted; cumulative, so graph their rate().
 * - `action_queue_dead_tuples_per_action`: row versions the queue left for vacuum
 *   (rows updated and deleted in its tables) per attempt recorded (rows
 *   inserted into `action_attempts`, one per attempt), between this
 *   instance's last two scrapes that saw attempts. About 3 for a workload
 *   whose groups empty after each action (bench/README.md, "MVCC
 *   pressure"); under a held horizon none of them can go, so
 *   `action_queue_table_dead_tuples` grows by this much per action.
 * - `action_queue_mvcc_horizon_age_transactions` / `action_queue_mvcc_horizon_age_seconds`:
 *   how far back the oldest transaction, snapshot, replication slot or
 *   prepared transaction holds the horizon (in transaction ids, and the
 *   oldest open transaction's age in seconds). While it is held, vacuum
 *   cannot remove the dead versions above.
 * The figures are queue-wide (the same on every instance). A failed read is
 * counted in `action_queue_table_health_query_errors_total` and logged; the
 * gauges then keep their last values.
 */
@Injectable()
export class TableHealthCollector {
  private readonly logger = new Logger(TableHealthCollector.name);
  private readonly errors: Counter;
  private pending?: { startedAt: number; read: Promise<{ tables: TableHealthRow[]; horizon: HorizonRow } | undefined> };
  /** The cumulative counts of the last read that saw a new attempt, for action_queue_dead_tuples_per_action. */
  private counted?: { versions: number; attempts: number };
  private deadTuplesPerAction?: number;

  constructor(
    metrics: MetricsRegistry,
    @Inject(PG_POOL) private readonly pool: Pool,
  ) {
    const registers = [metrics.registry];
    const perTable = (name: string, help: string, pick: (row: TableHealthRow) => number): void => {
      const read = () => this.read();
      new Gauge({
        name,
        help,
        labelNames: ['table'],
        registers,
        async collect() {
          const health = await read();
          for (const row of health?.tables ?? []) this.set({ table: row.table_name }, pick(row));
        },
      });
    };
    perTable('action_queue_table_dead_tuples', 'Dead row versions waiting for vacuum, per queue table (pg_stat_user_tables.n_dead_tup).', (r) => r.dead);
    perTable('action_queue_table_live_tuples', 'Live rows per queue table (pg_stat_user_tables.n_live_tup).', (r) => r.live);
    perTable('action_queue_table_tuples_updated', 'Rows updated per queue table since the statistics were reset (cumulative: use rate()).', (r) => r.updated);
    perTable(
      'action_queue_table_tuples_hot_updated',
      'Rows updated heap-only (HOT: no new index entry) per queue table since the statistics were reset (cumulative: use rate()).',
      (r) => r.hot_updated,
    );
    perTable('action_queue_table_tuples_deleted', 'Rows deleted per queue table since the statistics were reset (cumulative: use rate()).', (r) => r.deleted);
    const horizon = (name: string, help: string, pick: (row: HorizonRow) => number): void => {
      const read = () => this.read();
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          const health = await read();
          if (health) this.set(pick(health.horizon));
        },
      });
    };
    horizon(
      'action_queue_mvcc_horizon_age_transactions',
      'Age in transaction ids of the oldest xid or snapshot held in this database (sessions, replication slots, prepared transactions): dead row versions newer than it cannot be vacuumed.',
      (r) => r.xids,
    );
    horizon(
      'action_queue_mvcc_horizon_age_seconds',
      'Seconds the oldest transaction of this database holding an xid or a snapshot (or a prepared one) has been open (0 when none).',
      (r) => r.seconds,
    );
    const readRatio = async (): Promise<number | undefined> => {
      await this.read();
      return this.deadTuplesPerAction;
    };
    new Gauge({
      name: 'action_queue_dead_tuples_per_action',
      help: 'Row versions left for vacuum (rows updated and deleted in the queue tables) per attempt recorded, between the last two scrapes of this instance that saw attempts.',
      registers,
      async collect() {
        const ratio = await readRatio();
        if (ratio !== undefined) this.set(ratio);
      },
    });
    this.errors = new Counter({ name: 'action_queue_table_health_query_errors_total', help: 'Scrapes whose table-health query failed.', registers });
  }

  /** The two reads of this scrape (started by the first gauge collected), or undefined when they failed. */
  private read(): Promise<{ tables: TableHealthRow[]; horizon: HorizonRow } | undefined> {
    const now = Date.now();
    if (!this.pending || now - this.pending.startedAt > SCRAPE_SHARE_MS) {
      this.pending = { startedAt: now, read: this.query() };
    }
    return this.pending.read;
  }

  /**
   * Updates the dead-tuples-per-action figure from cumulative counts: rows
   * updated and deleted over all queue tables against rows inserted into
   * action_attempts since the last count that saw attempts. A reset of the
   * statistics (counts going down) starts the count again.
   */
  private countDeadTuplesPerAction(tables: TableHealthRow[]): void {
    const versions = tables.reduce((sum, t) => sum + t.updated + t.deleted, 0);
    const attempts = tables.find((t) => t.table_name === 'action_attempts')?.inserted ?? 0;
    const last = this.counted;
    if (last && versions >= last.versions && attempts >= last.attempts) {
      if (attempts === last.attempts) return;
      this.deadTuplesPerAction = (versions - last.versions) / (attempts - last.attempts);
    }
    this.counted = { versions, attempts };
  }

  private async query(): Promise<{ tables: TableHealthRow[]; horizon: HorizonRow } | undefined> {
    try {
      const run = async <T>(text: string) => (await this.pool.query({ text, query_timeout: STATS_TIMEOUT_MS } as QueryConfig)).rows as T[];
      const [tables, horizon] = await Promise.all([run<TableHealthRow>(TABLE_HEALTH_SQL), run<HorizonRow>(MVCC_HORIZON_SQL)]);
      this.countDeadTuplesPerAction(tables);
      return { tables, horizon: horizon[0] };
    } catch (error) {
      this.errors.inc();
      this.logger.warn(`Table-health query for /metrics failed: ${(error as Error).message}`);
      return undefined;
    }
  }
}
