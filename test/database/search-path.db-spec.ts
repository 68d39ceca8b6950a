import request from 'supertest';
import { Client } from 'pg';
import { startTestApp, waitFor, withTestApp, withTestDatabase } from '../support';

/** Functions of `schema` with no `search_path` of their own (extension functions aside). */
const UNPINNED_FUNCTIONS_SQL = `
SELECT p.oid::regprocedure::text AS signature
FROM pg_proc AS p
WHERE p.pronamespace = $1::regnamespace
  AND NOT EXISTS (SELECT 1 FROM pg_depend AS d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
  AND NOT EXISTS (SELECT 1 FROM unnest(p.proconfig) AS c WHERE c LIKE 'search\\_path=%')
ORDER BY 1`;

/** A schema `app` with an `actions` table of its own, as an application that shares the database might have. */
const APP_SCHEMA_SQL = `
CREATE SCHEMA app;
CREATE TABLE app.actions (id serial PRIMARY KEY, lock_id bigint, type text, payload jsonb);`;

/** Waits until the queue (in `schema`) has `count` done actions. */
async function waitForDone(pg: Client, count: number, schema = 'action_queue'): Promise<void> {
  await waitFor(async () => (await pg.query(`SELECT 1 FROM ${schema}.actions WHERE status = 'done'`)).rowCount === count, 15_000);
}

describe('functions of the queue', () => {
  const db = withTestDatabase('pinned-functions');

  it("every function in the queue's schema pins its search_path", async () => {
    const pg = await db.connect();
    const { rows } = await pg.query<{ signature: string }>(UNPINNED_FUNCTIONS_SQL, ['action_queue']);
    expect(rows.map((r) => r.signature)).toEqual([]);
    const { rows: functions } = await pg.query(`SELECT 1 FROM pg_proc WHERE pronamespace = 'action_queue'::regnamespace AND proname LIKE 'aq\\_%'`);
    // Not vacuous: the queue has its functions here.
    expect(functions.length).toBeGreaterThanOrEqual(23);
  });
});

describe('producers on any search_path', () => {
  const t = withTestApp('producer-paths', { env: { WORKER_POLL_INTERVAL_MS: '100' } });

  it.each([
    ['other', 'CREATE SCHEMA IF NOT EXISTS other'],
    ["''", 'SELECT 1'],
    ['app, public', APP_SCHEMA_SQL],
  ])('a producer on search_path %s enqueues into action_queue.actions with the same guarantees', async (path, setup) => {
    const producer = await t.db.connect();
    await producer.query(setup);
    await producer.query(`SET search_path = ${path}`);
    const before = (await t.pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE status = 'done'`)).rows[0].n;
    await producer.query('BEGIN');
    await producer.query(
      `INSERT INTO action_queue.actions (lock_id, type, payload) VALUES (7, 'instance.create', '{"durationMs": 0}'), (7, 'instance.update', '{"durationMs": 0}')`,
    );
    await producer.query('COMMIT');
    await waitForDone(t.pg, before + 2);
    // The group's bookkeeping ran in the queue's schema: one head at a time, in id order.
    const { rows } = await t.pg.query<{ type: string }>(`SELECT type FROM actions WHERE lock_id = 7 ORDER BY started_at DESC LIMIT 2`);
    expect(rows.map((r) => r.type)).toEqual(['instance.update', 'instance.create']);
    if (path === 'app, public') expect((await producer.query('SELECT count(*)::int AS n FROM app.actions')).rows[0].n).toBe(0);
  });
});

describe("a DBA's ALTER DATABASE … SET search_path", () => {
  const migrated = withTestDatabase('dba-path-migrated');
  const empty = withTestDatabase('dba-path-empty', { migrated: false });

  it('an app schema with its own actions table first on the path: the service starts and runs the queue in action_queue', async () => {
    const pg = await migrated.connect();
    await pg.query(APP_SCHEMA_SQL);
    await pg.query(`ALTER DATABASE ${migrated.name} SET search_path = app, public`);
    const started = await startTestApp(migrated.url);
    try {
      const producer = await migrated.connect();
      await producer.query(`INSERT INTO action_queue.actions (lock_id, type, payload) VALUES (1, 'instance.create', '{"durationMs": 0}')`);
      await waitForDone(pg, 1);
      await request(started.url)
        .post('/actions')
        .send({ type: 'instance.create', lockId: 1, payload: { durationMs: 0 } })
        .expect(201);
      await waitForDone(pg, 2);
      expect((await pg.query('SELECT count(*)::int AS n FROM app.actions')).rows[0].n).toBe(0);
      expect((await request(started.url).get('/stats').expect(200)).body.byStatus.done).toBe(2);
    } finally {
      await started.app.close();
    }
  });

  it("an empty search_path (''): a new database is migrated into action_queue and runs", async () => {
    const pg = await empty.connect();
    await pg.query(`ALTER DATABASE ${empty.name} SET search_path = ''`);
    const started = await startTestApp(empty.url);
    try {
      await pg.query(`INSERT INTO action_queue.actions (lock_id, type, payload) VALUES (1, 'instance.create', '{"durationMs": 0}')`);
      await waitForDone(pg, 1);
      expect((await pg.query(`SELECT to_regclass('action_queue.typeorm_migrations') IS NOT NULL AS ok`)).rows[0].ok).toBe(true);
    } finally {
      await started.app.close();
    }
  });
});

describe("a DBA's search_path behind a transaction pooler (no start-up option can pin it)", () => {
  const db = withTestDatabase('dba-path-pooled');

  it('stops start-up naming the search_path it got, not a misleading schema version', async () => {
    const pg = await db.connect();
    await pg.query(APP_SCHEMA_SQL);
    await pg.query(`ALTER DATABASE ${db.name} SET search_path = app, public`);
    const failure = startTestApp(db.url, { DATABASE_POOLER: 'transaction' });
    await expect(failure).rejects.toThrow(/search_path is "app, public"/);
    await expect(failure).rejects.toThrow(/ALTER ROLE/);
    expect((await pg.query('SELECT count(*)::int AS n FROM app.actions')).rows[0].n).toBe(0);
  });
});

describe('DATABASE_SCHEMA', () => {
  const db = withTestDatabase('own-schema', { migrated: false });

  it('puts the queue in its own schema, end to end: migrations, worker, REST API, and producers on the default search_path', async () => {
    // A lease shorter than the last handler: its heartbeat connection must find the queue's tables too.
    const started = await startTestApp(db.url, { DATABASE_SCHEMA: 'queue', WORKER_POLL_INTERVAL_MS: '100', LEASE_MS: '1000', REAPER_INTERVAL_MS: '200' });
    try {
      const pg = await db.connect();
      expect((await pg.query(`SELECT to_regclass('action_queue.actions') AS t`)).rows[0].t).toBeNull();
      expect((await pg.query(UNPINNED_FUNCTIONS_SQL, ['queue'])).rows).toEqual([]);
      // A producer on the default search_path ("$user", public) qualifies the table.
      await pg.query(`INSERT INTO queue.actions (lock_id, type, payload) VALUES (3, 'instance.create', '{"durationMs": 0}')`);
      const created = await request(started.url)
        .post('/actions')
        .send({ type: 'instance.update', lockId: 3, payload: { durationMs: 0 } })
        .expect(201);
      await waitForDone(pg, 2, 'queue');
      expect(
        (
          await request(started.url)
            .get(`/actions/${created.body.id as string}`)
            .expect(200)
        ).body.status,
      ).toBe('done');
      expect((await request(started.url).get('/stats').expect(200)).body.byStatus.done).toBe(2);
      expect((await pg.query(`SELECT to_regclass('queue.typeorm_migrations') IS NOT NULL AS ok`)).rows[0].ok).toBe(true);
      await pg.query(`INSERT INTO queue.actions (lock_id, type, payload) VALUES (4, 'instance.delete', '{"durationMs": 1500}')`);
      await waitForDone(pg, 3, 'queue');
      const { rows: trace } = await pg.query<{ outcome: string }>(`SELECT outcome FROM queue.action_attempts WHERE lock_id = 4`);
      expect(trace.map((r) => r.outcome)).toEqual(['done']);
    } finally {
      await started.app.close();
    }
  });

  it('refuses a name that is not a plain identifier, naming the setting', async () => {
    await expect(startTestApp(db.url, { DATABASE_SCHEMA: 'Queue; DROP' })).rejects.toThrow(/DATABASE_SCHEMA/);
  });
});
