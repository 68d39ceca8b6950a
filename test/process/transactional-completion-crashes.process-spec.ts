import { Client } from 'pg';
import { ServiceProcess, sleep, startFixtureService, terminateBackends, waitFor, withTestDatabase } from '../support';

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

  beforeAll(async () => {
    c = await db.connect();
  });
  afterEach(async () => {
    for (const p of procs.splice(0)) await p.kill();
  });

  it(`keeps ${GROUPS * PER_GROUP} effects exactly once, in group order, with state versions = completed actions, through ${KILLS} kills`, async () => {
    await c.query(
      `CREATE TABLE tx_effects (n bigserial PRIMARY KEY, action_id bigint NOT NULL, lock_id bigint, attempt int NOT NULL, worker_id text NOT NULL, previous_id bigint)`,
    );
    const { rows } = await c.query<{ id: string; lock_id: string }>(
      `INSERT INTO actions (lock_id, type, payload)
       SELECT 500 + g, 'test.tx-effect', jsonb_build_object('ms', 40)
       FROM generate_series(1, $2::int) i, generate_series(1, $1::int) g
       ORDER BY i, g
       RETURNING id::text, lock_id::text`,
      [GROUPS, PER_GROUP],
    );
    const ids = rows.map((r) => r.id);
    procs.push(...(await Promise.all([0, 1].map(() => startFixtureService(db.url, env)))));
    for (let k = 0; k < KILLS; k++) {
      await sleep(300 + Math.random() * 900);
      const victim = procs.splice(Math.floor(Math.random() * procs.length), 1)[0];
      await victim.kill();
      if (k === 1) await terminateBackends(db.name, `application_name LIKE 'ordered-action-queue%'`);
      procs.push(await startFixtureService(db.url, env));
    }
    await waitFor(async () => (await c.query(`SELECT 1 FROM actions WHERE type = 'test.tx-effect' AND status <> 'done'`)).rowCount === 0, 120_000, 250);

    const { rows: counts } = await c.query<{ id: string; effects: number; done_traces: number }>(
      `SELECT a.id::text AS id,
              (SELECT count(*)::int FROM tx_effects AS e WHERE e.action_id = a.id) AS effects,
              (SELECT count(*)::int FROM action_attempts AS t WHERE t.action_id = a.id AND t.outcome = 'done') AS done_traces
       FROM actions AS a WHERE a.id = ANY($1::bigint[])`,
      [ids],
    );
    expect(counts.filter((r) => r.effects !== 1 || r.done_traces !== 1)).toEqual([]);
    expect(counts).toHaveLength(ids.length);

    const { rows: effects } = await c.query<{ lock_id: string; action_id: string; previous_id: string | null }>(
      `SELECT lock_id::text, action_id::text, previous_id::text FROM tx_effects ORDER BY n`,
    );
    for (let g = 1; g <= GROUPS; g++) {
      const lockId = String(500 + g);
      const chain = effects.filter((e) => e.lock_id === lockId);
      const expected = rows.filter((r) => r.lock_id === lockId).map((r) => r.id);
      expect(chain.map((e) => e.action_id)).toEqual(expected);
      // Each saw its predecessor's committed state: no overlap, no lost update.
      expect(chain.map((e) => e.previous_id)).toEqual([null, ...expected.slice(0, -1)]);
    }

    const { rows: states } = await c.query<{ lock_id: string; version: number; count: number }>(
      `SELECT lock_id::text, version::int AS version, (state->>'count')::int AS count FROM action_group_states WHERE lock_id BETWEEN 501 AND $1::bigint ORDER BY lock_id`,
      [500 + GROUPS],
    );
    expect(states).toEqual(Array.from({ length: GROUPS }, (_, i) => ({ lock_id: String(501 + i), version: PER_GROUP, count: PER_GROUP })));
    // The kills did land on running work.
    const { rows: lost } = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM action_attempts WHERE outcome <> 'done' AND action_id = ANY($1::bigint[])`,
      [ids],
    );
    expect(lost[0].n).toBeGreaterThan(0);
  });
});
