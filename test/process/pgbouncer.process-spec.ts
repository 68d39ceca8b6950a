import { Client } from 'pg';
import { checkTrace, formatTraceReport, PgBouncer, ServiceProcess, startPgBouncer, startServiceProcess, waitFor, withTestDatabase } from '../support';

/** The safety-net poll of these tests: any wake-up well under it came from LISTEN or the pooler's short poll. */
const POLL_MS = 10_000;

/** Settings of an instance whose pool goes through the pooler. */
function pooledEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_POOLER: 'transaction',
    WORKER_POLL_INTERVAL_MS: String(POLL_MS),
    // Handlers below run longer than a lease: only working heartbeats keep them.
    LEASE_MS: '1000',
    REAPER_INTERVAL_MS: '200',
    WORKER_CONCURRENCY: '8',
    DB_POOL_SIZE: '4',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** Lines a process logged at error level (pino's 50) or about prepared statements. */
function errorLines(output: string): string[] {
  return output.split('\n').filter((line) => line.includes('"level":50') || /prepared statement/i.test(line));
}

/**
 * Inserts one action by plain SQL (direct connection), waits until it is done,
 * and returns how long after its insert committed its attempt started (ms,
 * both stamps from the database clock).
 */
async function wakeUpLatencyMs(pg: Client, lockId: number): Promise<number> {
  const {
    rows: [row],
  } = await pg.query<{ id: string; committed: Date }>(
    `INSERT INTO actions (lock_id, type, payload) VALUES ($1, 'instance.create', '{"durationMs": 0}') RETURNING id, clock_timestamp() AS committed`,
    [lockId],
  );
  await waitFor(async () => (await pg.query(`SELECT 1 FROM actions WHERE id = $1 AND status = 'done'`, [row.id])).rowCount === 1, POLL_MS * 2);
  const {
    rows: [latency],
  } = await pg.query<{ ms: number }>(
    `SELECT (extract(epoch FROM started_at - $2::timestamptz) * 1000)::float8 AS ms FROM action_attempts WHERE action_id = $1`,
    [row.id, row.committed],
  );
  return latency.ms;
}

describe('behind PgBouncer in transaction pooling', () => {
  // Empty: both instances migrate it at start-up, through the pooler, at the same time.
  const db = withTestDatabase('pgbouncer', { migrated: false });
  let bouncer: PgBouncer;
  let pg: Client;
  const services: ServiceProcess[] = [];

  beforeAll(async () => {
    bouncer = await startPgBouncer();
    pg = await db.connect();
  });
  afterAll(async () => {
    await Promise.all(services.splice(0).map((s) => s.stop()));
    await bouncer?.stop();
  });

  it('two instances migrate together, claim, heartbeat and complete without an error, and LISTEN_DATABASE_URL wakes them at once', async () => {
    const env = pooledEnv({ LISTEN_DATABASE_URL: db.url });
    services.push(
      ...(await Promise.all([startServiceProcess(bouncer.urlFor(db.name), env, 60_000), startServiceProcess(bouncer.urlFor(db.name), env, 60_000)])),
    );
    try {
      // 200 quick actions in 20 groups, and 8 that outlive their lease (1 s) by half.
      await pg.query(`
        INSERT INTO actions (lock_id, type, payload)
        SELECT g % 20, 'instance.create', '{"durationMs": 0}' FROM generate_series(1, 200) AS g`);
      await pg.query(`
        INSERT INTO actions (lock_id, type, payload)
        SELECT 100 + g, 'instance.update', '{"durationMs": 1500}' FROM generate_series(1, 8) AS g`);
      await waitFor(async () => (await pg.query(`SELECT 1 FROM actions WHERE status <> 'done'`)).rowCount === 0, 60_000);

      const report = await checkTrace(pg);
      if (!report.ok) throw new Error(formatTraceReport(report));
      // One attempt each: no lease was lost, so every heartbeat went through.
      expect(report.attemptsByOutcome).toEqual({ done: 208 });
      // Both instances took part.
      expect(Object.keys(report.doneByWorker)).toHaveLength(2);

      const latencies: number[] = [];
      for (let i = 0; i < 5; i++) latencies.push(await wakeUpLatencyMs(pg, 500 + i));
      // LISTEN on the direct connection: milliseconds, where the poll would take up to 10 s.
      expect(Math.max(...latencies)).toBeLessThan(1_000);

      for (const service of services) expect(errorLines(service.output())).toEqual([]);
    } finally {
      await Promise.all(services.splice(0).map((s) => s.stop()));
    }
  });

  it('without LISTEN_DATABASE_URL it warns at start-up and polls briefly instead of waiting for the safety-net poll', async () => {
    const service = await startServiceProcess(bouncer.urlFor(db.name), pooledEnv(), 60_000);
    services.push(service);
    try {
      await waitFor(async () => service.output().includes('LISTEN_DATABASE_URL'), 10_000);
      const latencies: number[] = [];
      for (let i = 0; i < 3; i++) latencies.push(await wakeUpLatencyMs(pg, 600 + i));
      expect(Math.max(...latencies)).toBeLessThan(POLL_MS / 5);
      expect(errorLines(service.output())).toEqual([]);
    } finally {
      await Promise.all(services.splice(0).map((s) => s.stop()));
    }
  });
});

describe('behind PgBouncer in session pooling', () => {
  const db = withTestDatabase('pgbouncer-session');
  let bouncer: PgBouncer;

  beforeAll(async () => {
    bouncer = await startPgBouncer('session');
  });
  afterAll(async () => {
    await bouncer?.stop();
  });

  it('needs no setting: the service connects (no start-up options PgBouncer would refuse), runs and wakes on LISTEN', async () => {
    const service = await startServiceProcess(bouncer.urlFor(db.name), { WORKER_POLL_INTERVAL_MS: String(POLL_MS), LOG_LEVEL: 'warn' }, 60_000);
    try {
      const pg = await db.connect();
      const latencies: number[] = [];
      for (let i = 0; i < 3; i++) latencies.push(await wakeUpLatencyMs(pg, 700 + i));
      expect(Math.max(...latencies)).toBeLessThan(1_000);
      expect(errorLines(service.output())).toEqual([]);
    } finally {
      await service.stop();
    }
  });
});
