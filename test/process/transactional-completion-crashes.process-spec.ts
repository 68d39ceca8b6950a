import { Client } from 'pg';
import { BlackholeProxy, ServiceProcess, sleep, startBlackholeProxy, startFixtureService, terminateBackends, waitFor, withTestDatabase } from '../support';

const LEASE_MS = 2_000;
const GROUPS = 12;
const PER_GROUP = 10;
const KILLS = 4;

const env = {
  LOG_LEVEL: 'error',
  WORKER_CONCURRENCY: '8',
  LEASE_MS: String(LEASE_MS),
  REAPER_INTERVAL_MS: '500',
  WORKER_POLL_INTERVAL_MS: '200',
};

/**
 * ctx.transaction under crashes (test/fixtures/tx-effect-handler.ts): each
 * action inserts one row into a user table and counts itself in its group's
 * state in the transaction that completes it, while instances are killed
 * with SIGKILL at random moments (inside transactions, at commits) and every
 * instance's connections are cut once. Every action's row exists exactly
 * once, each group's rows follow id order and each saw the state its
 * predecessor committed (so no two of a group ran at once), and each group's
 * state version equals its completed actions. Seen failing (actions with two
 * rows) with the handler's transaction committing its writes and the worker's
 * own finish recording the done afterwards, the two commits of a plain handler.
 */
describe('exactly-once effects under SIGKILL and connection cuts', () => {
  const db = withTestDatabase('tx_crashes');
  let c: Client;
  const procs: ServiceProcess[] = [];
  let proxy: BlackholeProxy | null = null;

  beforeAll(async () => {
    c = await db.connect();
    await c.query(
      `CREATE TABLE tx_effects (n bigserial PRIMARY KEY, action_id bigint NOT NULL, lock_id bigint, attempt int NOT NULL, worker_id text NOT NULL, previous_id bigint)`,
    );
  });
  afterEach(async () => {
    for (const p of procs.splice(0)) await p.kill();
    await proxy?.close();
    proxy = null;
  });

  /** Inserts `groups` groups of `perGroup` actions from lock id `first`, interleaved; returns them in id order. */
  async function insertWorkload(first: number, groups: number, perGroup: number): Promise<{ id: string; lock_id: string }[]> {
    const { rows } = await c.query<{ id: string; lock_id: string }>(
      `INSERT INTO actions (lock_id, type, payload)
       SELECT $3::bigint + g, 'test.tx-effect', jsonb_build_object('ms', 40)
       FROM generate_series(1, $2::int) i, generate_series(0, $1::int - 1) g
       ORDER BY i, g
       RETURNING id::text, lock_id::text`,
      [groups, perGroup, first],
    );
    return rows;
  }

  /** Every action of `rows` done with exactly one effect row and one done trace row, each group's rows in id order chained by their state, versions = actions. */
  async function expectExactlyOnce(rows: { id: string; lock_id: string }[], perGroup: number): Promise<void> {
    const ids = rows.map((r) => r.id);
    await waitFor(async () => (await c.query(`SELECT 1 FROM actions WHERE id = ANY($1::bigint[]) AND status <> 'done'`, [ids])).rowCount === 0, 120_000, 250);
    const { rows: counts } = await c.query<{ id: string; effects: number; done_traces: number }>(
      `SELECT a.id::text AS id,
              (SELECT count(*)::int FROM tx_effects AS e WHERE e.action_id = a.id) AS effects,
              (SELECT count(*)::int FROM action_attempts AS t WHERE t.action_id = a.id AND t.outcome = 'done') AS done_traces
       FROM actions AS a WHERE a.id = ANY($1::bigint[])`,
      [ids],
    );
    expect(counts.filter((r) => r.effects !== 1 || r.done_traces !== 1)).toEqual([]);
    expect(counts).toHaveLength(ids.length);
    const locks = [...new Set(rows.map((r) => r.lock_id))];
    const { rows: effects } = await c.query<{ lock_id: string; action_id: string; previous_id: string | null }>(
      `SELECT lock_id::text, action_id::text, previous_id::text FROM tx_effects WHERE lock_id = ANY($1::bigint[]) ORDER BY n`,
      [locks],
    );
    for (const lockId of locks) {
      const chain = effects.filter((e) => e.lock_id === lockId);
      const expected = rows.filter((r) => r.lock_id === lockId).map((r) => r.id);
      expect(chain.map((e) => e.action_id)).toEqual(expected);
      // Each saw its predecessor's committed state: no overlap, no lost update.
      expect(chain.map((e) => e.previous_id)).toEqual([null, ...expected.slice(0, -1)]);
    }
    const { rows: states } = await c.query<{ lock_id: string; version: number; count: number }>(
      `SELECT lock_id::text, version::int AS version, (state->>'count')::int AS count FROM action_group_states WHERE lock_id = ANY($1::bigint[]) ORDER BY lock_id`,
      [locks],
    );
    expect(states).toEqual([...locks].sort((a, b) => Number(a) - Number(b)).map((lock_id) => ({ lock_id, version: perGroup, count: perGroup })));
  }

  /** The lease owner of a running action among `ids`, waiting up to 5 s for one; null when none runs by then. */
  async function runningOwner(ids: string[]): Promise<string | null> {
    for (const deadline = Date.now() + 5_000; Date.now() < deadline; await sleep(10)) {
      const { rows } = await c.query<{ owner: string }>(
        `SELECT lease_owner AS owner FROM actions WHERE status = 'running' AND id = ANY($1::bigint[]) LIMIT 1`,
        [ids],
      );
      if (rows.length > 0) return rows[0].owner;
    }
    return null;
  }

  it(`keeps ${GROUPS * PER_GROUP} effects exactly once, in group order, with state versions = completed actions, through ${KILLS} kills`, async () => {
    const rows = await insertWorkload(501, GROUPS, PER_GROUP);
    procs.push(...(await Promise.all([0, 1].map(() => startFixtureService(db.url, env)))));
    for (let k = 0; k < KILLS; k++) {
      await sleep(Math.random() * 300);
      // The instance that holds a running action now (worker ids name their pid), so
      // that the kill lands inside a transaction, not after the workload has drained.
      const owner = await runningOwner(rows.map((r) => r.id));
      if (owner === null) break;
      const held = procs.findIndex((p) => owner.includes(`-${p.child.pid}-`));
      const victim = procs.splice(held >= 0 ? held : Math.floor(Math.random() * procs.length), 1)[0];
      await victim.kill();
      if (k === 1) await terminateBackends(db.name, `application_name LIKE 'ordered-action-queue%'`);
      procs.push(await startFixtureService(db.url, env));
    }
    await expectExactlyOnce(rows, PER_GROUP);
    // The kills did land on running work.
    const { rows: lost } = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM action_attempts WHERE outcome <> 'done' AND action_id = ANY($1::bigint[])`,
      [rows.map((r) => r.id)],
    );
    expect(lost[0].n).toBeGreaterThan(0);
  });

  it('refuses the commits of a blackholed instance whose leases expired inside its transactions; the instance that took over commits once', async () => {
    proxy = await startBlackholeProxy(db.url);
    const cut = await startFixtureService(proxy.url, env);
    procs.push(cut);
    // Cut off the moment it writes an effect: its transaction is open, its row written but not committed.
    const fired = proxy.blackholeOn('INSERT INTO tx_effects');
    const rows = await insertWorkload(601, 6, 8);
    await fired;
    const live = await startFixtureService(db.url, env);
    procs.push(live);
    // The cut instance's leases expire; the live instance's reaper ends them and it takes the work.
    await waitFor(
      async () => (await c.query(`SELECT 1 FROM action_attempts WHERE lock_id BETWEEN 601 AND 606 AND outcome = 'lease_expired'`)).rowCount! > 0,
      30_000,
      200,
    );
    await sleep(1_000);
    // Reconnected: its hung statements reach PostgreSQL, and its commits meet the fence.
    proxy.restore();
    await expectExactlyOnce(rows, 8);
  });
});
