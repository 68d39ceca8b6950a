import { Client } from 'pg';
import { sleep } from '../src/sleep';
import { processCpuUs } from './cpu-per-action';

/**
 * Where the time goes during a pressure phase (bench/mvcc-pressure.ts): the
 * cost of an action at the start of the phase against its end. A queue whose
 * cost does not depend on the MVCC horizon shows the same figures in both
 * windows; one that walks dead row versions shows them growing with the hold.
 *
 * Sampled every {@link TIMELINE_SAMPLE_MS} on a connection of its own:
 * - CPU (utime + stime, `/proc/<pid>/stat`) of the service's backends (every
 *   connection whose `application_name` starts with `ordered-action-queue/`)
 *   and of the producer's backend (its INSERT runs the group triggers: the
 *   enqueue's share of an action's cost);
 * - attempts recorded (`pg_stat_user_tables.n_tup_ins` of action_attempts:
 *   one per attempt, read without scanning a growing table);
 * - `pg_stat_user_functions` (calls, total time) of the queue's functions,
 *   triggers included (`track_functions = 'pl'`, set on the phase's database
 *   before the service connects).
 * Reported per window: µs of CPU per attempt, and the functions' ms per 1 000
 * attempts, heaviest first. CPU of a process on a shared machine still moves
 * with the machine's load, but far less than seconds do.
 */

/** Sampling period (ms). */
export const TIMELINE_SAMPLE_MS = 5_000;

interface FunctionCounters {
  calls: number;
  totalMs: number;
}

interface TimelineSample {
  atMs: number;
  attempts: number;
  serviceDbUs: number;
  producerDbUs: number;
  functions: Map<string, FunctionCounters>;
}

/** The cost of an attempt in one window of a phase. */
export interface CostWindow {
  /** Window bounds, seconds from the start of the phase's pressure. */
  fromS: number;
  toS: number;
  attempts: number;
  /** CPU µs of the service's backends per attempt. */
  serviceDbUsPerAttempt: number;
  /** CPU µs of the producer's backend per attempt (its inserts, triggers included). */
  producerDbUsPerAttempt: number;
  /** Milliseconds of each queue function (total time, children included) per 1 000 attempts, heaviest first. */
  functionMsPer1000: { name: string; ms: number; callsPer1000: number }[];
}

/** Samples the cost counters of one phase until stopped; then `window(…)` tells the cost in a span of it. */
export class PressureCostTimeline {
  private readonly samples: TimelineSample[] = [];
  private running = true;
  private loop: Promise<void> = Promise.resolve();
  private producerPid = 0;
  private readonly lastByPid = new Map<number, number>();

  private constructor(private readonly client: Client) {}

  /**
   * Sets `track_functions = 'pl'` on the database at `url` (call before the
   * service connects: it applies to new sessions) and returns a timeline that
   * is not sampling yet.
   */
  static async prepare(url: string): Promise<PressureCostTimeline> {
    const client = new Client({ connectionString: url, application_name: 'bench:cost-timeline' });
    await client.connect();
    const { rows } = await client.query<{ db: string }>('SELECT current_database() AS db');
    await client.query(`ALTER DATABASE ${client.escapeIdentifier(rows[0].db)} SET track_functions = 'pl'`);
    return new PressureCostTimeline(client);
  }

  /** Starts sampling; `producerPid` is the producer connection's backend pid. */
  start(producerPid: number): void {
    this.producerPid = producerPid;
    this.loop = this.sampleUntilStopped();
  }

  /** Stops sampling and closes the connection. */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await this.client.end();
  }

  /** The cost between `fromMs` and `toMs` (epoch ms; the nearest samples inside the span), or null without two samples in it. */
  window(fromMs: number, toMs: number, originMs: number): CostWindow | null {
    const inside = this.samples.filter((s) => s.atMs >= fromMs && s.atMs <= toMs);
    if (inside.length < 2) return null;
    const a = inside[0];
    const b = inside[inside.length - 1];
    const attempts = b.attempts - a.attempts;
    if (attempts <= 0) return null;
    const functionMsPer1000 = [...b.functions]
      .map(([name, f]) => {
        const before = a.functions.get(name) ?? { calls: 0, totalMs: 0 };
        return { name, ms: ((f.totalMs - before.totalMs) * 1000) / attempts, callsPer1000: ((f.calls - before.calls) * 1000) / attempts };
      })
      .filter((f) => f.callsPer1000 > 0)
      .sort((x, y) => y.ms - x.ms);
    return {
      fromS: (a.atMs - originMs) / 1000,
      toS: (b.atMs - originMs) / 1000,
      attempts,
      serviceDbUsPerAttempt: (b.serviceDbUs - a.serviceDbUs) / attempts,
      producerDbUsPerAttempt: (b.producerDbUs - a.producerDbUs) / attempts,
      functionMsPer1000,
    };
  }

  private async sampleUntilStopped(): Promise<void> {
    while (this.running) {
      await this.sample();
      const until = Date.now() + TIMELINE_SAMPLE_MS;
      while (this.running && Date.now() < until) await sleep(100);
    }
    await this.sample();
  }

  private async sample(): Promise<void> {
    const pids = await this.client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'ordered-action-queue/%'`,
    );
    for (const { pid } of pids.rows) {
      const us = processCpuUs(pid);
      if (us !== null) this.lastByPid.set(pid, us);
    }
    let serviceDbUs = 0;
    for (const us of this.lastByPid.values()) serviceDbUs += us;
    // The statistics of other backends are read as of this transaction's first look: one statement each.
    const attempts = await this.client.query<{ n: string }>(`SELECT n_tup_ins AS n FROM pg_stat_user_tables WHERE relname = 'action_attempts'`);
    const fns = await this.client.query<{ name: string; calls: string; total_ms: number }>(
      `SELECT funcname AS name, calls, total_time AS total_ms FROM pg_stat_user_functions WHERE funcname LIKE 'aq\\_%'`,
    );
    const functions = new Map<string, FunctionCounters>();
    for (const f of fns.rows) functions.set(f.name, { calls: Number(f.calls), totalMs: f.total_ms });
    this.samples.push({
      atMs: Date.now(),
      attempts: Number(attempts.rows[0]?.n ?? 0),
      serviceDbUs,
      producerDbUs: processCpuUs(this.producerPid) ?? this.samples[this.samples.length - 1]?.producerDbUs ?? 0,
      functions,
    });
  }
}

/** Lines that print a window: CPU per attempt, then the heaviest functions. */
export function formatCostWindow(label: string, w: CostWindow | null, topFunctions = 6): string[] {
  if (!w) return [`  ${label}: not enough samples`];
  return [
    `  ${label} (${w.fromS.toFixed(0)}-${w.toS.toFixed(0)} s, ${w.attempts} attempts): service backends ${w.serviceDbUsPerAttempt.toFixed(0)} µs/attempt, producer ${w.producerDbUsPerAttempt.toFixed(0)} µs/attempt`,
    `    ms per 1 000 attempts: ${w.functionMsPer1000
      .slice(0, topFunctions)
      .map((f) => `${f.name} ${f.ms.toFixed(0)}`)
      .join(', ')}`,
  ];
}
