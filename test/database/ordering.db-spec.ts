import { Client } from 'pg';
import request from 'supertest';
import { backendPid, checkTrace, formatTraceReport, insertAction, sleep, waitFor, waitForLockWaiters, withTestApp } from '../support';

/** A type no handler runs: actions of it stay pending, so tests control their group's head. */
const PARKED_TYPE = 'test.parked';

describe('group order: no overlap, commit order, any producer, failures keep their place', () => {
  const t = withTestApp('ordering', { env: { WORKER_CONCURRENCY: '8' } });
  let url: string;

  /** A new connected pg client, closed after the file. */
  const connect = () => t.db.connect();
  let admin: Client;

  const insert = (c: Client, lockId: number | string, payload: Record<string, unknown> = {}, type = 'instance.update') =>
    insertAction(c, lockId, type, payload);

  /** Waits until the backend `pid` waits on a heavyweight lock (our insert is queued behind the group lock). */
  const waitUntilBlocked = (pid: number) => waitForLockWaiters(t.db.name, 1, [pid], 5_000);

  const statusOf = async (id: string) => (await admin.query<{ status: string }>('SELECT status FROM actions WHERE id = $1', [id])).rows[0].status;

  const waitForStatus = (ids: string[], status: string) =>
    waitFor(async () => {
      const { rows } = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE id = ANY($1::bigint[]) AND status = $2`, [ids, status]);
      return rows[0].n === ids.length;
    }, 20_000);

  const headsOf = async (lockId: number) =>
    (await admin.query<{ id: string }>(`SELECT id::text FROM actions WHERE lock_id = $1 AND holds_group AND is_head ORDER BY actions.id`, [lockId])).rows.map(
      (r) => r.id,
    );

  const smallestHolding = async (lockId: number) =>
    (await admin.query<{ id: string | null }>(`SELECT min(id)::text AS id FROM actions WHERE lock_id = $1 AND holds_group`, [lockId])).rows[0].id;

  beforeAll(() => ({ url, pg: admin } = t));

  describe('within a group, id order is commit order', () => {
    it('makes a second producer of the same group wait for the first to commit, then gives it a later id', async () => {
      // Without the trigger, B would take its id from the sequence at once: it
      // could commit first with a larger id while A's smaller id is still
      // invisible, and a worker would run B's action before A's (trap 4). With
      // the trigger, B's insert waits on the group lock A holds, and takes its
      // id only after A committed. We prove the wait (pg_stat_activity), that
      // other groups are not held up meanwhile (C), that B's id is drawn after
      // A's commit (it exceeds an id drawn just before A commits), and that
      // processing follows ids.
      const G = 4001;
      const [a, b, c] = [await connect(), await connect(), await connect()];
      await a.query('BEGIN');
      const idA = await insert(a, G, { who: 'A', durationMs: 40 });

      await b.query('BEGIN');
      const bPid = await backendPid(b);
      const pendingB = insert(b, G, { who: 'B', durationMs: 40 });
      await waitUntilBlocked(bPid);

      // Another group is not held up by A's open transaction.
      const idOther = await insert(c, 4002, { who: 'C', durationMs: 0 });
      expect(BigInt(idOther)).toBeGreaterThan(BigInt(idA));
      // Still blocked after C went through; the marker is an id drawn while A is open.
      await waitUntilBlocked(bPid);
      const marker = (await c.query<{ id: string }>(`SELECT nextval('actions_id_seq')::text AS id`)).rows[0].id;

      await a.query('COMMIT');
      const idB = await pendingB;
      await b.query('COMMIT');
      expect(BigInt(idB)).toBeGreaterThan(BigInt(marker));
      expect(BigInt(idB)).toBeGreaterThan(BigInt(idA));

      await waitForStatus([idA, idB, idOther], 'done');
      const report = await checkTrace(admin, { lockIds: [String(G)], expectDone: [idA, idB] });
      expect(report.ok ? '' : formatTraceReport(report)).toBe('');
      const { rows } = await admin.query<{ action_id: string }>(
        `SELECT action_id::text FROM action_attempts WHERE lock_id = $1 AND outcome = 'done' ORDER BY started_at`,
        [G],
      );
      expect(rows.map((r) => r.action_id)).toEqual([idA, idB]);
    });

    it('discards an id a producer drew from the sequence before taking the group lock', async () => {
      // The classic interleaving: B draws a sequence value first (here
      // explicitly, as a client could by sending its own id or calling
      // nextval), then A enqueues into the group and commits, then B inserts
      // with its early value. If that value were kept, B's action would sort
      // before A's although B committed later. The trigger replaces any id with
      // one drawn under the group lock, so B ends after A.
      const G = 4003;
      const [a, b] = [await connect(), await connect()];
      await b.query('BEGIN');
      const early = (await b.query<{ id: string }>(`SELECT nextval('actions_id_seq')::text AS id`)).rows[0].id;

      await a.query('BEGIN');
      const idA = await insert(a, G, { who: 'A', durationMs: 20 });
      await a.query('COMMIT');
      expect(BigInt(idA)).toBeGreaterThan(BigInt(early));

      const { rows } = await b.query<{ id: string }>(
        `INSERT INTO actions (id, lock_id, type, payload) VALUES ($1, $2, 'instance.update', '{"who": "B", "durationMs": 20}') RETURNING id::text`,
        [early, G],
      );
      await b.query('COMMIT');
      const idB = rows[0].id;
      expect(idB).not.toBe(early);
      expect(BigInt(idB)).toBeGreaterThan(BigInt(idA));

      await waitForStatus([idA, idB], 'done');
      const report = await checkTrace(admin, { lockIds: [String(G)], expectDone: [idA, idB] });
      expect(report.ok ? '' : formatTraceReport(report)).toBe('');
    });

    it('follows commit order, not transaction start order, when the later-started producer commits first', async () => {
      const G = 4004;
      const [a, b] = [await connect(), await connect()];
      await a.query('BEGIN');
      await a.query('SELECT 1'); // A starts first and takes its snapshot
      await b.query('BEGIN');
      const idB = await insert(b, G, { who: 'B', durationMs: 20 });
      await b.query('COMMIT');
      const idA = await insert(a, G, { who: 'A', durationMs: 20 });
      await a.query('COMMIT');
      expect(BigInt(idB)).toBeLessThan(BigInt(idA));
      await waitForStatus([idA, idB], 'done');
      const report = await checkTrace(admin, { lockIds: [String(G)], expectDone: [idA, idB] });
      expect(report.ok ? '' : formatTraceReport(report)).toBe('');
    });

    // A REPEATABLE READ producer reads the group state as of its snapshot. If a
    // concurrent transaction changed the group after that snapshot, the group
    // row lock must turn into a serialization error (40001); otherwise the
    // producer would decide "head" or "not head" from stale data and the group
    // would end up with two heads, or none.
    const repeatableReadCases: { name: string; G: number; setup: (c: Client) => Promise<void>; concurrent: (c: Client) => Promise<void> }[] = [
      {
        name: 'an emptied group gets a concurrent head',
        G: 4101,
        setup: async (c) => {
          const id = await insert(c, 4101, {}, PARKED_TYPE);
          await c.query(`UPDATE actions SET status = 'cancelled', finished_at = now() WHERE id = $1`, [id]);
        },
        concurrent: async (c) => void (await insert(c, 4101, {}, PARKED_TYPE)),
      },
      {
        name: 'a brand-new group is created concurrently',
        G: 4102,
        setup: async () => undefined,
        concurrent: async (c) => void (await insert(c, 4102, {}, PARKED_TYPE)),
      },
      {
        name: 'the only holding action is cancelled concurrently',
        G: 4103,
        setup: async (c) => void (await insert(c, 4103, {}, PARKED_TYPE)),
        concurrent: async (c) => {
          await c.query(`UPDATE actions SET status = 'cancelled', finished_at = now() WHERE lock_id = 4103 AND holds_group`);
        },
      },
    ];
    it.each(repeatableReadCases)('lets no REPEATABLE READ producer leave two heads or none when $name', async ({ G, setup, concurrent }) => {
      const [rr, other] = [await connect(), await connect()];
      await setup(other);
      await rr.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await rr.query('SELECT count(*) FROM actions WHERE lock_id = $1', [G]); // takes the snapshot
      await concurrent(other);
      let code: string | undefined;
      try {
        await insert(rr, G, {}, PARKED_TYPE);
        await rr.query('COMMIT');
      } catch (error) {
        code = (error as { code?: string }).code;
        await rr.query('ROLLBACK');
      }
      // Either refused as a serialization failure, or (if it ever commits) correct.
      expect([undefined, '40001']).toContain(code);
      const expectedHead = await smallestHolding(G);
      expect(await headsOf(G)).toEqual(expectedHead ? [expectedHead] : []);

      // The producer's retry (as any RR client must) goes through and keeps one head.
      if (code) {
        await rr.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
        await insert(rr, G, {}, PARKED_TYPE);
        await rr.query('COMMIT');
      }
      expect(await headsOf(G)).toEqual([await smallestHolding(G)]);
      const group = (await admin.query<{ head_id: string }>('SELECT head_id::text FROM action_groups WHERE lock_id = $1', [G])).rows[0];
      expect(group.head_id).toBe(await smallestHolding(G));
    });
  });

  describe('plain SQL producers get the same order', () => {
    it('processes multi-row INSERT ... VALUES and INSERT ... SELECT in input order per group', async () => {
      const groups = [4201, 4202, 4203, 4204, 4205];
      const producer = await connect();
      // Multi-row VALUES interleaving the groups; seq is the input position.
      const values = Array.from({ length: 60 }, (_, i) => `(${groups[i % 5]}, 'instance.update', '{"seq": ${i}, "durationMs": ${i % 4}}')`);
      await producer.query(`INSERT INTO actions (lock_id, type, payload) VALUES ${values.join(', ')}`);
      // INSERT ... SELECT, while the first statement's actions are running.
      await producer.query(`INSERT INTO actions (lock_id, type, payload)
                            SELECT 4201 + (i % 5), 'instance.update', jsonb_build_object('seq', 1000 + i, 'durationMs', i % 3)
                            FROM generate_series(0, 99) AS i`);
      // A producer's own transaction (outbox): visible, and ordered, on commit.
      await producer.query('BEGIN');
      await producer.query(`INSERT INTO actions (lock_id, type, payload) VALUES (4203, 'instance.update', '{"seq": 5000, "durationMs": 1}')`);
      await producer.query(`INSERT INTO actions (lock_id, type, payload) VALUES (4203, 'instance.update', '{"seq": 5001, "durationMs": 1}')`);
      await producer.query('COMMIT');

      await waitFor(async () => {
        const { rows } = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE lock_id BETWEEN 4201 AND 4205 AND status <> 'done'`);
        return rows[0].n === 0;
      }, 30_000);

      const lockIds = groups.map(String);
      const report = await checkTrace(admin, { lockIds, expectDone: (a) => a.lockId !== null && lockIds.includes(a.lockId) });
      expect(report.ok ? '' : formatTraceReport(report)).toBe('');
      expect(report.lost).toEqual([]);

      // Input order = id order = processing order, per group.
      const { rows } = await admin.query<{ lock_id: string; by_id: number[]; by_start: number[] }>(`
        SELECT a.lock_id::text,
               array_agg((a.payload->>'seq')::int ORDER BY a.id) AS by_id,
               array_agg((a.payload->>'seq')::int ORDER BY t.started_at) AS by_start
        FROM actions a JOIN action_attempts t ON t.action_id = a.id AND t.outcome = 'done'
        WHERE a.lock_id BETWEEN 4201 AND 4205
        GROUP BY a.lock_id ORDER BY a.lock_id`);
      expect(rows).toHaveLength(5);
      let total = 0;
      for (const r of rows) {
        const sorted = [...r.by_id].sort((x, y) => x - y);
        expect({ group: r.lock_id, byId: r.by_id }).toEqual({ group: r.lock_id, byId: sorted });
        expect({ group: r.lock_id, byStart: r.by_start }).toEqual({ group: r.lock_id, byStart: r.by_id });
        total += r.by_id.length;
      }
      expect(total).toBe(162);
    });
  });

  describe('failures and the group', () => {
    const failing = (lockId: string, extra: Record<string, unknown>) => ({ type: 'instance.update', lockId, maxAttempts: 1, ...extra });
    const getAction = async (id: string) => (await request(url).get(`/actions/${id}`).expect(200)).body;

    it('keeps a group blocked behind a failed action, lets other groups go on, and unblocks it on cancel', async () => {
      const res = await request(url)
        .post('/actions/batch')
        .send({
          actions: [
            failing('4301', { payload: { failAttempts: 5, durationMs: 0 } }),
            { type: 'instance.update', lockId: '4301', payload: { durationMs: 0 } },
            { type: 'instance.update', lockId: '4302', payload: { durationMs: 0 } },
            { type: 'instance.update', lockId: '4301', payload: { durationMs: 0 } },
            { type: 'instance.update', lockId: '4302', payload: { durationMs: 0 } },
          ],
        })
        .expect(201);
      const [fail, next1, other1, next2, other2] = res.body.actions.map((a: { id: string }) => a.id);
      await waitForStatus([fail], 'failed');
      await waitForStatus([other1, other2], 'done');
      // Give the workers several poll rounds: the blocked group must not move.
      await sleep(800);
      expect([await statusOf(next1), await statusOf(next2)]).toEqual(['pending', 'pending']);
      expect((await getAction(next1)).attempts).toBe(0);

      const group = (await request(url).get('/groups/4301').expect(200)).body;
      expect(group).toMatchObject({ lockId: '4301', blocked: true, running: false, pendingCount: 2 });
      expect(group.head.id).toBe(fail);
      expect(group.blockedReason).toContain(`head action ${fail} failed`);
      expect(group.blockedReason).toContain('simulated failure');
      expect((await request(url).get('/groups/4302').expect(200)).body.blocked).toBe(false);

      const cancelled = await request(url).post(`/actions/${fail}/cancel`).expect(200);
      expect(cancelled.body.status).toBe('cancelled');
      await waitForStatus([next1, next2], 'done');
      const after = (await request(url).get('/groups/4301').expect(200)).body;
      expect(after).toMatchObject({ blocked: false, blockedReason: null, head: null, pendingCount: 0 });
      const report = await checkTrace(admin, { lockIds: ['4301', '4302'], expectDone: [next1, next2, other1, other2] });
      expect(report.ok ? '' : formatTraceReport(report)).toBe('');
    });

    it('re-runs a failed head in place on retry under the block policy, then runs the rest of the group', async () => {
      const res = await request(url)
        .post('/actions/batch')
        .send({
          actions: [failing('4303', { payload: { failAttempts: 1, durationMs: 0 } }), { type: 'instance.update', lockId: '4303', payload: { durationMs: 0 } }],
        })
        .expect(201);
      const [fail, next] = res.body.actions.map((a: { id: string }) => a.id);
      await waitForStatus([fail], 'failed');
      await sleep(500);
      expect(await statusOf(next)).toBe('pending');

      const retried = await request(url).post(`/actions/${fail}/retry`).expect(200);
      expect(retried.body).toMatchObject({ id: fail, status: 'pending', retryOf: null });
      await waitForStatus([fail, next], 'done');
      const failed = await getAction(fail);
      expect(failed.attempts).toBe(2);
      expect(failed.trace.map((t: { outcome: string; attempt: number }) => `${t.attempt}:${t.outcome}`)).toEqual(['1:error', '2:done']);
      const report = await checkTrace(admin, { lockIds: ['4303'], expectDone: [fail, next] });
      expect(report.ok ? '' : formatTraceReport(report)).toBe('');
    });

    it('moves the group on under the skip policy, and retry enqueues a copy at the tail linked by retryOf', async () => {
      const res = await request(url)
        .post('/actions/batch')
        .send({
          actions: [
            failing('4304', { onFailure: 'skip', payload: { failAttempts: 1, durationMs: 0 } }),
            { type: 'instance.update', lockId: '4304', payload: { durationMs: 0 } },
          ],
        })
        .expect(201);
      const [skipped, next] = res.body.actions.map((a: { id: string }) => a.id);
      await waitForStatus([skipped], 'failed');
      await waitForStatus([next], 'done');
      expect((await request(url).get('/groups/4304').expect(200)).body).toMatchObject({ blocked: false, pendingCount: 0 });

      const copy = (await request(url).post(`/actions/${skipped}/retry`).expect(200)).body;
      expect(copy.id).not.toBe(skipped);
      expect(copy).toMatchObject({ retryOf: skipped, lockId: '4304', type: 'instance.update', maxAttempts: 1, onFailure: 'skip' });
      expect(BigInt(copy.id)).toBeGreaterThan(BigInt(next));
      // The copy runs (and, with the same payload, fails its first attempt again).
      await waitForStatus([copy.id], 'failed');
      expect((await getAction(copy.id)).trace).toHaveLength(1);
      expect(await statusOf(skipped)).toBe('failed');
      const report = await checkTrace(admin, { lockIds: ['4304'], expectDone: [next] });
      expect(report.ok ? '' : formatTraceReport(report)).toBe('');
    });
  });
});
