// @run-alone (test/support/run-alone.ts): recovery times against a clean run of the same workload.
import { Client } from 'pg';
import { BlackholeProxy, ServiceProcess, sleep, startBlackholeProxy, startFixtureService, waitFor, withTestDatabase } from '../support';

const LEASE_MS = 3_000;
const REAPER_INTERVAL_MS = 1_000;
/** Each action of the workload sleeps this long (ms); a group is a chain of ACTIONS_PER_GROUP of them. */
const ACTION_MS = 1_500;
const GROUPS = 32;
const ACTIONS_PER_GROUP = 3;
/** Slack for the machine (process start, a shared 2-core box): "a few seconds". */
const SLACK_MS = 4_000;
/** The bound on recovery after a crash: LEASE_MS + 2 reaper intervals + the group chains + a few seconds. */
const RECOVERY_BOUND_MS = LEASE_MS + 2 * REAPER_INTERVAL_MS + ACTIONS_PER_GROUP * ACTION_MS + SLACK_MS;

const env = {
  LOG_LEVEL: 'warn',
  WORKER_CONCURRENCY: '16',
  LEASE_MS: String(LEASE_MS),
  REAPER_INTERVAL_MS: String(REAPER_INTERVAL_MS),
  WORKER_POLL_INTERVAL_MS: '200',
};

/**
 * Attempts lost with their instance are re-run at
 * once and in parallel, uncharged; a suspect takes one slot on one instance
 * and the rest of the work goes on. Each recovery is compared with a clean
 * run of the same workload measured in the same test (the machine is shared:
 * absolute times drift, the ratio much less).
 */
describe('recovery after instances are lost', () => {
  const db = withTestDatabase('crash_recovery');
  let c: Client;
  let proxy: BlackholeProxy | null = null;
  const procs: ServiceProcess[] = [];
  let nextLock = 1;

  beforeAll(async () => {
    c = await db.connect();
  });
  afterEach(async () => {
    for (const p of procs.splice(0)) await p.kill();
    await proxy?.close();
    proxy = null;
  });

  async function start(url: string, n: number): Promise<ServiceProcess[]> {
    const started = await Promise.all(Array.from({ length: n }, () => startFixtureService(url, env)));
    procs.push(...started);
    return started;
  }

  /**
   * Inserts GROUPS groups of ACTIONS_PER_GROUP sleeps of `ms`, on lock ids never used before; returns their lock ids.
   * The groups belong to four tenants (the default one among them), so the claims serve tenants in turn (docs/tenants.md).
   */
  async function insertWorkload(groups = GROUPS, perGroup = ACTIONS_PER_GROUP, ms = ACTION_MS): Promise<number[]> {
    const first = nextLock;
    nextLock += groups;
    const { rows } = await c.query<{ lock_id: string }>(
      `INSERT INTO actions (lock_id, type, payload, tenant)
       SELECT $1::bigint + g, 'test.sleep', jsonb_build_object('ms', $3::int), (ARRAY['default', 'acme', 'globex', 'initech'])[g % 4 + 1]
       FROM generate_series(0, $2::int - 1) g, generate_series(1, $4::int) i
       ORDER BY g, i
       RETURNING lock_id::text`,
      [first, groups, ms, perGroup],
    );
    return [...new Set(rows.map((r) => Number(r.lock_id)))];
  }

  const unfinished = async (locks: number[]) =>
    (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE lock_id = ANY($1::bigint[]) AND status <> 'done'`, [locks])).rows[0].n;
  const running = async (locks: number[]) =>
    (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE lock_id = ANY($1::bigint[]) AND status = 'running'`, [locks])).rows[0].n;

  /** Waits until every action of `locks` is done; returns the ms it took from `since`. */
  async function drained(locks: number[], since: number, timeoutMs = 90_000): Promise<number> {
    await waitFor(async () => (await unfinished(locks)) === 0, timeoutMs, 100);
    return Date.now() - since;
  }

  /**
   * A clean run of the workload: `n` instances started on it once it is
   * enqueued, as the crashed ones are restarted on theirs (ms from their
   * start to drained; process start-up counts in both). Stops them after.
   */
  async function cleanRunMs(url: string, n = 2): Promise<number> {
    const locks = await insertWorkload();
    const startedAt = Date.now();
    const instances = await start(url, n);
    const ms = await drained(locks, startedAt);
    for (const p of instances) await p.stop();
    procs.splice(0);
    return ms;
  }

  async function chargedOrFailed(locks: number[]): Promise<number> {
    const { rows } = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM actions WHERE lock_id = ANY($1::bigint[]) AND (charged_attempts > 0 OR status = 'failed')`,
      [locks],
    );
    return rows[0].n;
  }

  it('two instances killed 1 s into 32 groups x 3 actions recover in parallel: within the bound and 2x a clean run', async () => {
    const cleanMs = await cleanRunMs(db.url);

    const instances = await start(db.url, 2);
    const locks = await insertWorkload();
    await waitFor(async () => (await running(locks)) === GROUPS, 20_000);
    await sleep(1_000); // "about 1 s in": each head has run for a second
    await Promise.all(instances.map((p) => p.kill()));
    procs.length = 0;
    const restartedAt = Date.now();
    await start(db.url, 2);
    const recoveryMs = await drained(locks, restartedAt);

    console.log(
      `crash recovery: clean run ${cleanMs} ms; drained ${recoveryMs} ms after the restart (bound ${RECOVERY_BOUND_MS} ms, 2x clean ${2 * cleanMs} ms)`,
    );
    expect(recoveryMs).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
    expect(recoveryMs).toBeLessThanOrEqual(2 * cleanMs);
    // Lost once with their instance: re-run uncharged, and no one is suspected.
    expect(await chargedOrFailed(locks)).toBe(0);
    const { rows } = await c.query(`SELECT count(*)::int AS n FROM action_attempts WHERE lock_id = ANY($1::bigint[]) AND outcome = 'lease_expired'`, [locks]);
    expect(rows[0].n).toBe(GROUPS);
  });

  it('instances cut off from PostgreSQL for longer than LEASE_MS with 32 actions in flight recover in parallel once reconnected', async () => {
    proxy = await startBlackholeProxy(db.url);
    const cleanMs = await cleanRunMs(proxy.url);

    await start(proxy.url, 2);
    const locks = await insertWorkload();
    await waitFor(async () => (await running(locks)) === GROUPS, 20_000);
    await sleep(1_000);
    proxy.blackhole();
    // Longer than LEASE_MS: every lease expires while the instances cannot reach the database,
    // and a reaper on the database's side of the partition (here the test's own call, as an
    // instance that is not cut off would) returns the actions. Without one, whichever comes
    // first after the reconnect decides: the fenced instance's own release (not a loss) or its reaper.
    await sleep(LEASE_MS + 1_500);
    await waitFor(async () => {
      await c.query(`SELECT * FROM aq_reap_expired_leases(500)`);
      return (await running(locks)) === 0;
    }, 10_000);
    proxy.restore();
    const reconnectedAt = Date.now();
    const recoveryMs = await drained(locks, reconnectedAt);
    // Leases granted by the instances' statements that PostgreSQL ran only on the reconnect are released, not lost again.
    const { rows: attempts } = await c.query(
      `SELECT outcome, count(*)::int AS n, left(min(error), 80) AS error FROM action_attempts WHERE lock_id = ANY($1::bigint[]) GROUP BY 1 ORDER BY 1`,
      [locks],
    );
    console.log(`partition recovery: attempts ${JSON.stringify(attempts)}`);
    console.log(
      `partition recovery: clean run ${cleanMs} ms; drained ${recoveryMs} ms after reconnecting (bound ${RECOVERY_BOUND_MS} ms, 2x clean ${2 * cleanMs} ms)`,
    );
    expect(recoveryMs).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
    expect(recoveryMs).toBeLessThanOrEqual(2 * cleanMs);
    expect(await chargedOrFailed(locks)).toBe(0);
  });

  it('a suspect 60 s action takes one slot: 100 other actions beside it finish as fast as without it, and the instance keeps taking work', async () => {
    await start(db.url, 1);
    const hundred = () => insertWorkload(20, 5, 200);
    let since = Date.now();
    const cleanMs = await drained(await hundred(), since);

    // A suspect, as two consecutive losses with its instance leave it (src/database/sql/011-lost-attempts-in-parallel.up.sql).
    const {
      rows: [{ id: suspect }],
    } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload, run_at) VALUES (0, 'test.sleep', '{"ms": 60000}', now() + interval '1 hour') RETURNING id::text`,
    );
    await c.query(`UPDATE actions SET quarantined = true, uncharged_losses = 2, run_at = now() WHERE id = $1`, [suspect]);
    await waitFor(async () => (await c.query(`SELECT status FROM actions WHERE id = $1`, [suspect])).rows[0].status === 'running', 10_000).catch(async (e) => {
      console.log(JSON.stringify((await c.query(`SELECT * FROM actions WHERE id = $1`, [suspect])).rows), procs[0].output().slice(-3000));
      throw e;
    });

    since = Date.now();
    const withSuspectMs = await drained(await hundred(), since, 30_000);
    console.log(`suspect beside 100 actions: clean ${cleanMs} ms, beside a running 60 s suspect ${withSuspectMs} ms`);
    expect(withSuspectMs).toBeLessThanOrEqual(2 * cleanMs + 1_000);
    // It is still running in its one slot meanwhile.
    expect((await c.query(`SELECT status FROM actions WHERE id = $1`, [suspect])).rows[0].status).toBe('running');

    // And the instance keeps taking new work, at once.
    since = Date.now();
    const afterMs = await drained(await insertWorkload(1, 1, 10), since, 10_000);
    expect(afterMs).toBeLessThan(2_000);
  });
});
