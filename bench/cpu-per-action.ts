import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { sleep } from '../src/sleep';

/**
 * Machine-independent figures of the benchmark: CPU time, commits and hot
 * function calls per action, and the same for one pgbench `-N` transaction.
 *
 * What is counted:
 * - **Database CPU**: utime + stime (`/proc/<pid>/stat`) of the client
 *   backends connected to the scenario's database (`pg_stat_activity`,
 *   `backend_type = 'client backend'`), i.e. the service's pool and LISTEN
 *   connections, minus the meter's own connection. Not counted: the WAL
 *   writer, checkpointer, background writer and autovacuum, which serve every
 *   database of the server and the other work on this shared machine; the WAL
 *   a commit waits for is written by the committing backend itself (counted)
 *   unless the WAL writer got there first.
 * - **Service CPU**: utime + stime of the service process (all its threads).
 * - Both are sampled every {@link SAMPLE_INTERVAL_MS} and interpolated to the
 *   window the throughput uses (first attempt start to last attempt end), so
 *   Node's start-up is left out.
 * - **Commits**: `pg_stat_database.xact_commit` of the database, from before
 *   the service starts to after it stopped (backends flush their counters at
 *   exit), minus the meter's own transactions: so it includes the service's
 *   start-up and shutdown (a few dozen transactions). The service runs each
 *   statement as its own transaction, so this is also its statement count.
 * - **Function calls**: `pg_stat_user_functions.calls` of the claim and
 *   finishing functions (`track_functions = 'pl'` set for the database), over
 *   the same span.
 */

/** Sampling period of the CPU meter (ms): short enough to interpolate a 2 s window within a few per cent. */
export const SAMPLE_INTERVAL_MS = 50;
/** Clock ticks per second of /proc/<pid>/stat (`getconf CLK_TCK`; 100 on Linux unless told otherwise). */
const CLOCK_TICKS_PER_SECOND = readClockTicks();
/** The service's hot functions whose calls are counted per action. */
export const COUNTED_FUNCTIONS = ['aq_claim_actions', 'aq_finish_attempts'] as const;

function readClockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** CPU time (µs) of process `pid` so far (utime + stime), or null when it is gone. */
export function processCpuUs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: state is field 3, utime 14, stime 15.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(rest[11]) + Number(rest[12])) * 1e6) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

interface Sample {
  atMs: number;
  databaseUs: number;
  serviceUs: number;
}

/** Counters of one database read at one moment. */
interface ServerCounters {
  commits: number;
  rollbacks: number;
  calls: Record<string, number>;
}

/** Figures per action of one scenario (see the file's doc for what each counts). */
export interface CostPerAction {
  /** CPU µs of the database's client backends per action, in the throughput window. */
  databaseCpuUs: number;
  /** CPU µs of the service process per action, in the same window. */
  serviceCpuUs: number;
  /** Committed transactions per action (start-up and shutdown included). */
  commits: number;
  /** Rolled-back transactions per action. */
  rollbacks: number;
  /** Calls per action of each of COUNTED_FUNCTIONS. */
  calls: Record<string, number>;
}

/**
 * Samples the CPU of a database's client backends and of one service process.
 * `start` before the service starts, `watchService(pid)` as soon as it is
 * spawned, `stop` after it stopped, then `costPerAction`.
 */
export class CpuMeter {
  private readonly samples: Sample[] = [];
  private readonly lastByPid = new Map<number, number>();
  /** Service processes watched, with their last CPU reading (a process that exited keeps its last). */
  private readonly serviceUs = new Map<number, number>();
  private running = true;
  private loop: Promise<void> = Promise.resolve();
  private ownTransactions = 0;
  private before: ServerCounters | null = null;

  private constructor(
    private readonly client: Client,
    private readonly url: string,
  ) {}

  /** Connects to `url` (the scenario's database), sets track_functions for the service's future connections, reads the counters, starts sampling. */
  static async start(url: string): Promise<CpuMeter> {
    const client = new Client({ connectionString: url, application_name: 'bench:cpu-meter' });
    await client.connect();
    const meter = new CpuMeter(client, url);
    const { rows } = await client.query<{ db: string }>('SELECT current_database() AS db');
    await client.query(`ALTER DATABASE ${client.escapeIdentifier(rows[0].db)} SET track_functions = 'pl'`);
    meter.before = await readCounters(client);
    meter.ownTransactions = 4; // the two statements above and the two of readCounters
    meter.loop = meter.sampleUntilStopped();
    return meter;
  }

  /** A service process to sample from now on (several: their sum). */
  watchService(pid: number): void {
    this.serviceUs.set(pid, processCpuUs(pid) ?? 0);
  }

  /**
   * Runs a statement of the benchmark's own (e.g. its wait for the end of
   * the work) on the meter's connection, so that its transaction is not
   * counted as the service's.
   */
  async query<T extends object>(text: string): Promise<T[]> {
    this.ownTransactions++;
    return (await this.client.query<T>(text)).rows;
  }

  /** Stops sampling and closes the meter's connection (which flushes its own counters). */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await this.client.end();
  }

  /**
   * Cost per action over `actions` actions: CPU interpolated to the window
   * [fromMs, toMs] (epoch ms, e.g. the trace's first start and last end),
   * counters over the whole span. Call after `stop` and after the service exited.
   */
  async costPerAction(actions: number, fromMs: number, toMs: number): Promise<CostPerAction> {
    if (!this.before) throw new Error('CpuMeter was not started');
    const after = await withOwnClient(this.url, readCounters);
    const from = this.at(fromMs);
    const to = this.at(toMs);
    const calls: Record<string, number> = {};
    for (const f of COUNTED_FUNCTIONS) calls[f] = ((after.calls[f] ?? 0) - (this.before.calls[f] ?? 0)) / actions;
    return {
      databaseCpuUs: (to.databaseUs - from.databaseUs) / actions,
      serviceCpuUs: (to.serviceUs - from.serviceUs) / actions,
      commits: (after.commits - this.before.commits - this.ownTransactions) / actions,
      rollbacks: (after.rollbacks - this.before.rollbacks) / actions,
      calls,
    };
  }

  /** Cumulative CPU at epoch ms `t`, linearly interpolated between samples. */
  private at(t: number): { databaseUs: number; serviceUs: number } {
    const s = this.samples;
    if (s.length === 0) return { databaseUs: 0, serviceUs: 0 };
    if (t <= s[0].atMs) return s[0];
    for (let i = 1; i < s.length; i++) {
      if (s[i].atMs >= t) {
        const f = (t - s[i - 1].atMs) / (s[i].atMs - s[i - 1].atMs || 1);
        return {
          databaseUs: s[i - 1].databaseUs + f * (s[i].databaseUs - s[i - 1].databaseUs),
          serviceUs: s[i - 1].serviceUs + f * (s[i].serviceUs - s[i - 1].serviceUs),
        };
      }
    }
    return s[s.length - 1];
  }

  private async sampleUntilStopped(): Promise<void> {
    while (this.running) {
      const { rows } = await this.client.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      );
      this.ownTransactions++;
      for (const { pid } of rows) {
        const us = processCpuUs(pid);
        if (us !== null) this.lastByPid.set(pid, us);
      }
      let serviceUs = 0;
      for (const [pid, last] of this.serviceUs) {
        const us = processCpuUs(pid) ?? last;
        this.serviceUs.set(pid, us);
        serviceUs += us;
      }
      let databaseUs = 0;
      for (const us of this.lastByPid.values()) databaseUs += us;
      this.samples.push({ atMs: Date.now(), databaseUs, serviceUs });
      await sleep(SAMPLE_INTERVAL_MS);
    }
  }
}

async function readCounters(c: Client): Promise<ServerCounters> {
  const db = await c.query<{ commits: string; rollbacks: string }>(
    'SELECT xact_commit AS commits, xact_rollback AS rollbacks FROM pg_stat_database WHERE datname = current_database()',
  );
  const fn = await c.query<{ name: string; calls: string }>('SELECT funcname AS name, calls FROM pg_stat_user_functions WHERE funcname = ANY($1::text[])', [
    [...COUNTED_FUNCTIONS],
  ]);
  const calls: Record<string, number> = {};
  for (const r of fn.rows) calls[r.name] = Number(r.calls);
  return { commits: Number(db.rows[0].commits), rollbacks: Number(db.rows[0].rollbacks), calls };
}

async function withOwnClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** pgbench's built-in simple-update transaction (`-N`): BEGIN, UPDATE, SELECT, INSERT, END. */
const PGBENCH_N_STATEMENTS_PER_TRANSACTION = 5;

/** One pgbench `-N` run with one client, and its backend's CPU per transaction. */
export interface PgbenchCost {
  tps: number;
  /** CPU µs of pgbench's backend per transaction (its whole life: connection start-up included). */
  databaseCpuUs: number;
  commits: number;
  statements: number;
}

/**
 * Runs `pgbench -n -N -c 1 -T seconds` on an initialised pgbench database at
 * `url` and samples its one backend's CPU until it exits (the last sample
 * before the exit is used: at most one sampling period short).
 * @throws when pgbench fails or its output cannot be read.
 */
export async function pgbenchSimpleUpdateCost(url: string, seconds: number): Promise<PgbenchCost> {
  const watcher = new Client({ connectionString: url, application_name: 'bench:cpu-meter' });
  await watcher.connect();
  try {
    const child = spawn('pgbench', ['-n', '-N', '-c', '1', '-j', '1', '-T', String(seconds), url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
    let done = false;
    void exited.then(() => (done = true));
    let lastUs = 0;
    while (!done) {
      const { rows } = await watcher.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE application_name = 'pgbench' AND datname = current_database()`,
      );
      for (const { pid } of rows) lastUs = processCpuUs(pid) ?? lastUs;
      await sleep(SAMPLE_INTERVAL_MS);
    }
    if ((await exited) !== 0) throw new Error(`pgbench -N failed:\n${out}`);
    const tx = /number of transactions actually processed: (\d+)/.exec(out);
    const tps = /tps = ([\d.]+)/.exec(out);
    if (!tx || !tps) throw new Error(`cannot read pgbench output:\n${out}`);
    const transactions = Number(tx[1]);
    return { tps: Number(tps[1]), databaseCpuUs: lastUs / transactions, commits: 1, statements: PGBENCH_N_STATEMENTS_PER_TRANSACTION };
  } finally {
    await watcher.end();
  }
}

/** One line of the cost table. */
export function formatCost(name: string, c: CostPerAction, pgbenchCpuUs: number): string {
  const total = c.databaseCpuUs + c.serviceCpuUs;
  const calls = COUNTED_FUNCTIONS.map((f) => c.calls[f].toFixed(3)).join(' / ');
  return `${name.padEnd(52)} ${c.databaseCpuUs.toFixed(1).padStart(9)} ${c.serviceCpuUs.toFixed(1).padStart(9)} ${(total / pgbenchCpuUs).toFixed(2).padStart(7)} ${c.commits.toFixed(3).padStart(8)}   ${calls}`;
}

/** Header of the cost table. */
export const COST_TABLE_HEADER = `${'scenario'.padEnd(52)} ${'db µs'.padStart(9)} ${'svc µs'.padStart(9)} ${'× pgb-N'.padStart(7)} ${'commits'.padStart(8)}   ${COUNTED_FUNCTIONS.join(' / ')} calls`;
