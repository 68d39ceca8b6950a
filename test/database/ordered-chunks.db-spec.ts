import { INestApplication, Module } from '@nestjs/common';
import request from 'supertest';
import { Client } from 'pg';
import { ActionContext, ActionHandler, ActionHandlerHost, chunkDone, chunkFailed, ChunkHandlerHost, ChunkOutcome, QueuedAction } from '../../src/handlers';
import { checkTrace, connect, formatTraceReport, insertAction, startTestApp, waitFor, withTestDatabase } from '../support';
import { EXTEND_LEASES_SQL } from '../../src/queue/sql/extend-leases.sql';

/** What the test handlers saw, in the order they ran: one entry per call. */
const seen = {
  calls: [] as { type: string; ids: string[]; attempts: number[] }[],
  /** Every action run, in the order its handler reached it. */
  order: [] as string[],
  /** Per call: the outcomes to report, given the actions (default: all done). */
  plan: null as null | ((actions: QueuedAction[], ctx: ActionContext) => Promise<ChunkOutcome[]>),
};

@ActionHandler({ type: 'test.chunk', chunk: { max: 50 }, backoffBaseMs: 20, backoffCapMs: 40 })
class ChunkHandler extends ChunkHandlerHost {
  async handleChunk(actions: QueuedAction[], ctx: ActionContext): Promise<ChunkOutcome[]> {
    seen.calls.push({ type: 'test.chunk', ids: actions.map((a) => a.id), attempts: actions.map((a) => a.attempt) });
    if (seen.plan) return seen.plan(actions, ctx);
    seen.order.push(...actions.map((a) => a.id));
    return actions.map((a) => chunkDone({ id: a.id }));
  }
}

@ActionHandler('test.single')
class SingleHandler extends ActionHandlerHost {
  async handle(action: QueuedAction) {
    seen.calls.push({ type: 'test.single', ids: [action.id], attempts: [action.attempt] });
    seen.order.push(action.id);
    return { id: action.id };
  }
}

@Module({ providers: [ChunkHandler, SingleHandler] })
class ChunkHandlersModule {}

const ENV = { DEMO_HANDLERS: 'false', WORKER_CONCURRENCY: '4', WORKER_POLL_INTERVAL_MS: '100', REAPER_INTERVAL_MS: '200' };

describe('ordered chunk handlers', () => {
  const db = withTestDatabase('ordered_chunks');
  let c: Client;
  let app: INestApplication | undefined;
  let url = '';

  beforeAll(async () => {
    c = await connect(db.url);
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    seen.calls.length = 0;
    seen.order.length = 0;
    seen.plan = null;
  });
  afterAll(async () => {
    await c?.end();
  });

  async function start(): Promise<void> {
    const started = await startTestApp(db.url, ENV, [ChunkHandlersModule]);
    app = started.app;
    url = started.url;
  }

  async function enqueue(lockId: number, types: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const type of types) ids.push(await insertAction(c, lockId, type, { n: ids.length }));
    return ids;
  }

  async function statuses(ids: string[]) {
    const { rows } = await c.query<{ id: string; status: string; attempts: number; charged_attempts: number; is_head: boolean }>(
      `SELECT id::text, status, attempts, charged_attempts, is_head FROM actions AS a WHERE a.id = ANY($1::bigint[]) ORDER BY a.id`,
      [ids],
    );
    return rows;
  }

  const allFinished = (ids: string[]) => async () =>
    (await statuses(ids)).every((r) => r.status === 'done' || r.status === 'cancelled' || r.status === 'failed');

  it('runs up to max consecutive actions of a group per call, in id order, each with its own attempt, and records each result and trace row', async () => {
    const ids = await enqueue(701, Array(60).fill('test.chunk'));
    await start();
    await waitFor(allFinished(ids), 20_000);
    expect(seen.calls.map((call) => call.ids)).toEqual([ids.slice(0, 50), ids.slice(50)]);
    expect(seen.calls.every((call) => call.attempts.every((a) => a === 1))).toBe(true);
    const { rows } = await c.query(`SELECT a.id::text, a.status, a.result FROM actions AS a WHERE a.lock_id = 701 ORDER BY a.id`);
    expect(rows).toEqual(ids.map((id) => ({ id, status: 'done', result: { id } })));
    const trace = await c.query<{ action_id: string; outcome: string; chunk_of: string | null }>(
      `SELECT t.action_id::text, t.outcome, t.chunk_of::text FROM action_attempts AS t WHERE t.lock_id = 701 ORDER BY t.action_id`,
    );
    expect(trace.rows).toEqual(ids.map((id, i) => ({ action_id: id, outcome: 'done', chunk_of: i < 50 ? ids[0] : ids[50] })));
    // The trace read shows the chunk.
    const read = await request(url).get(`/actions/${ids[7]}`).expect(200);
    expect(read.body.trace).toEqual([expect.objectContaining({ attempt: 1, outcome: 'done', chunkOf: ids[0] })]);
  });

  it('a chunk whose 17th action fails: 16 done, the 17th retried as the head with backoff, the rest wait behind it and run after it, in order', async () => {
    const ids = await enqueue(702, Array(30).fill('test.chunk'));
    let failedOnce = false;
    seen.plan = async (actions) => {
      const outcomes: ChunkOutcome[] = [];
      for (const a of actions) {
        if (a.id === ids[16] && !failedOnce) {
          failedOnce = true;
          outcomes.push(chunkFailed(new Error('downstream said no')));
          // Reported past the failure: ignored, as running them one at a time would have.
          outcomes.push(...actions.slice(outcomes.length).map(() => chunkDone('must not be recorded')));
          return outcomes;
        }
        seen.order.push(a.id);
        outcomes.push(chunkDone({ id: a.id }));
      }
      return outcomes;
    };
    await start();
    // Right after the first call: the prefix is done, the 17th is the head again and charged, the rest were released uncharged.
    await waitFor(async () => (await statuses([ids[0]]))[0].status === 'done', 20_000);
    const afterFirst = await c.query(
      `SELECT a.id::text, a.status, a.attempts, a.charged_attempts, a.last_error, t.outcome
       FROM actions AS a JOIN action_attempts AS t ON t.action_id = a.id AND t.attempt = 1 WHERE a.lock_id = 702 ORDER BY a.id`,
    );
    const firstRows = afterFirst.rows as { id: string; status: string; charged_attempts: number; last_error: string | null; outcome: string }[];
    expect(firstRows.slice(0, 16).every((r) => r.outcome === 'done')).toBe(true);
    expect(firstRows[16]).toMatchObject({ outcome: 'error', charged_attempts: 1, last_error: expect.stringContaining('downstream said no') });
    expect(firstRows.slice(17).every((r) => r.outcome === 'released' && r.charged_attempts === 0)).toBe(true);

    await waitFor(allFinished(ids), 20_000);
    const final = await statuses(ids);
    expect(final.every((r) => r.status === 'done')).toBe(true);
    expect(final[16]).toMatchObject({ attempts: 2, charged_attempts: 1 });
    expect(final.slice(17).every((r) => r.attempts === 2 && r.charged_attempts === 0)).toBe(true);
    // The second call starts at the failed action; every action ran once to done, in id order.
    expect(seen.calls[1].ids).toEqual(ids.slice(16));
    expect(seen.order).toEqual(ids);
    const report = await checkTrace(c, { lockIds: ['702'], expectDone: ids });
    expect(report.ok ? 'ok' : formatTraceReport(report)).toBe('ok');
    const results = await c.query(`SELECT result FROM actions WHERE lock_id = 702`);
    expect(results.rows.every((r: { result: unknown }) => r.result !== 'must not be recorded')).toBe(true);
  });

  it('cancel of an action inside a running chunk: it ends cancelled once the handler stops, the done prefix is kept, the rest run after', async () => {
    const ids = await enqueue(703, Array(8).fill('test.chunk'));
    let firstCall = true;
    let reachedWait!: () => void;
    const waiting = new Promise<void>((resolve) => (reachedWait = resolve));
    seen.plan = async (actions, ctx) => {
      if (!firstCall) {
        seen.order.push(...actions.map((a) => a.id));
        return actions.map((a) => chunkDone({ id: a.id }));
      }
      firstCall = false;
      // Three done, then the handler waits on its signal and reports what it finished.
      seen.order.push(...actions.slice(0, 3).map((a) => a.id));
      reachedWait();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      return actions.slice(0, 3).map((a) => chunkDone({ id: a.id }));
    };
    await start();
    await waiting;
    expect((await statuses([ids[4]]))[0].status).toBe('running');
    const cancel = await request(url).post(`/actions/${ids[4]}/cancel`).expect(200);
    expect(cancel.body.status).toBe('running'); // requested: its handler holds it
    await waitFor(allFinished(ids), 20_000);
    const final = await statuses(ids);
    expect(final.map((r) => r.status)).toEqual(['done', 'done', 'done', 'done', 'cancelled', 'done', 'done', 'done']);
    expect(seen.calls.map((call) => call.ids)).toEqual([ids, [ids[3], ...ids.slice(5)]]);
    expect(seen.order).toEqual([...ids.slice(0, 4), ...ids.slice(5)]);
    const trace = await c.query(`SELECT outcome FROM action_attempts WHERE action_id = $1`, [ids[4]]);
    expect(trace.rows).toEqual([{ outcome: 'cancelled' }]);
  });

  // Seen before the fix: the first unfinished action was charged with the
  // stop's error (CancelRequestedError of another action), and with
  // maxAttempts 1 it failed and blocked its group.
  it('a failure the chunk reports for what its stop cut short is the stop: released uncharged, never a charged failure', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await insertAction(c, 705, 'test.chunk', { n: i }, 1));
    let firstCall = true;
    let reachedWait!: () => void;
    const waiting = new Promise<void>((resolve) => (reachedWait = resolve));
    seen.plan = async (actions, ctx) => {
      if (!firstCall) return actions.map((a) => chunkDone({ id: a.id }));
      firstCall = false;
      // Two done, then the handler waits on its signal and fails the rest with its reason, as the demo's handler does.
      reachedWait();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      return actions.map((a, i) => (i < 2 ? chunkDone({ id: a.id }) : chunkFailed(ctx.signal.reason)));
    };
    await start();
    await waiting;
    await request(url).post(`/actions/${ids[4]}/cancel`).expect(200);
    await waitFor(allFinished(ids), 20_000);
    const final = await statuses(ids);
    expect(final.map((r) => r.status)).toEqual(['done', 'done', 'done', 'done', 'cancelled', 'done']);
    expect(final.map((r) => r.charged_attempts)).toEqual([0, 0, 0, 0, 0, 0]);
    const trace = await c.query(`SELECT outcome FROM action_attempts WHERE action_id = $1 ORDER BY attempt`, [ids[2]]);
    expect(trace.rows).toEqual([{ outcome: 'released' }, { outcome: 'done' }]);
  });

  it('a chunk handler mixed with single handlers in one group: chunks end at an action of another type, and the group runs in id order', async () => {
    const types = ['test.chunk', 'test.chunk', 'test.chunk', 'test.single', 'test.chunk', 'test.chunk', 'test.single', 'test.single', 'test.chunk'];
    const ids = await enqueue(704, types);
    await start();
    await waitFor(allFinished(ids), 20_000);
    expect(seen.order).toEqual(ids);
    const report = await checkTrace(c, { lockIds: ['704'], expectDone: ids });
    expect(report.ok ? 'ok' : formatTraceReport(report)).toBe('ok');
    expect(seen.calls.map((call) => `${call.type}:${call.ids.length}`)).toEqual([
      'test.chunk:3',
      'test.single:1',
      'test.chunk:2',
      'test.single:1',
      'test.single:1',
      'test.chunk:1',
    ]);
  });

  it('a chunk ends before an action that is not due yet, and one a producer is enqueueing into the group waits for its commit', async () => {
    const ids = await enqueue(705, ['test.chunk', 'test.chunk']);
    // Due only once the first chunk has run (a second's delay was over before a loaded machine's first claim).
    const later = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, run_at) VALUES (705, 'test.chunk', now() + interval '1 hour') RETURNING id::text`,
    );
    const after = await enqueue(705, ['test.chunk']);
    await start();
    await waitFor(allFinished(ids), 20_000);
    await c.query(`UPDATE actions SET run_at = now() WHERE id = $1`, [later.rows[0].id]);
    const all = [...ids, later.rows[0].id, ...after];
    await waitFor(allFinished(all), 20_000);
    expect(seen.order).toEqual(all);
    expect(seen.calls[0].ids).toEqual(ids);
  });
});

describe('ordered chunks in the database: the fence of the prefix', () => {
  const db = withTestDatabase('ordered_chunks_fence');
  let c: Client;

  beforeAll(async () => {
    c = await connect(db.url);
  });
  afterAll(async () => {
    await c?.end();
  });

  const claim = (worker: string, type = 't.chunk') =>
    c.query<{ id: string }>(
      `SELECT c.id::text FROM aq_claim_chunks($1, ARRAY[$2], ARRAY[NULL::int], 10, 60000, false, ARRAY[$2], ARRAY[10]) AS c ORDER BY c.id`,
      [worker, type],
    );

  /** Sends the chunk's ends: done for each unless `statuses` says otherwise (then outcome `error`, charged, for a pending one). */
  const finishAllDone = (worker: string, ids: string[], statuses: string[] = ids.map(() => 'done')) =>
    c.query(
      `SELECT kind, (leased).id::text AS id FROM aq_finish_attempts($1, $2::bigint[], $3::int[], $4::text[], $5::jsonb[], $6::text[], $7::text[], $8::int[],
        $9::text[], $10::int[], '{}', '{}', 60000, 0, $11::bigint[], '{}', '{}')`,
      [
        worker,
        ids,
        ids.map(() => 1),
        statuses,
        ids.map((id) => JSON.stringify({ id })),
        ids.map(() => null),
        ids.map(() => null),
        ids.map(() => 0),
        statuses.map((status) => (status === 'done' ? 'done' : 'error')),
        statuses.map((status) => (status === 'done' ? 0 : 1)),
        ids.map(() => ids[0]),
      ],
    );

  it('leases the members under the head lease; after a member is lost, the later members are released, never recorded done before it', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await insertAction(c, 801, 't.chunk'));
    const claimed = await claim('w1');
    expect(claimed.rows.map((r) => r.id)).toEqual(ids);
    const leased = await c.query(`SELECT a.status, a.is_head, a.lease_owner, a.chunk_of::text FROM actions AS a WHERE a.lock_id = 801 ORDER BY a.id`);
    expect(leased.rows).toEqual(ids.map((_, i) => ({ status: 'running', is_head: i === 0, lease_owner: 'w1', chunk_of: ids[0] })));
    // Operator SQL cannot touch a running member.
    await expect(c.query(`DELETE FROM actions WHERE id = $1`, [ids[3]])).rejects.toMatchObject({ code: '55006' });

    // The reaper takes the third member back (as if its lease had expired before the others').
    // (As its holder's own release would: aq.worker names the holder, which the guard of running rows lets through.)
    await c.query('BEGIN');
    await c.query(`SELECT set_config('aq.worker', 'w1', true)`);
    await c.query(`SELECT * FROM aq_end_lost_attempts(ARRAY[$1::bigint], NULL, 'lease_expired', 'lease expired', 0, false)`, [ids[2]]);
    await c.query('COMMIT');
    const finished = await finishAllDone('w1', ids);
    expect(finished.rows.filter((r: { kind: string }) => r.kind === 'finished').map((r: { id: string }) => r.id)).toEqual([
      ids[0],
      ids[1],
      ids[3],
      ids[4],
      ids[5],
    ]);
    const after = await c.query(`SELECT a.id::text, a.status, a.is_head FROM actions AS a WHERE a.lock_id = 801 ORDER BY a.id`);
    expect(after.rows).toEqual([
      { id: ids[0], status: 'done', is_head: false },
      { id: ids[1], status: 'done', is_head: false },
      { id: ids[2], status: 'pending', is_head: true },
      { id: ids[3], status: 'pending', is_head: false },
      { id: ids[4], status: 'pending', is_head: false },
      { id: ids[5], status: 'pending', is_head: false },
    ]);
    const trace = await c.query(`SELECT t.action_id::text, t.outcome, t.chunk_of::text FROM action_attempts AS t WHERE t.lock_id = 801 ORDER BY t.action_id`);
    expect(trace.rows.map((r: { outcome: string }) => r.outcome)).toEqual(['done', 'done', 'lease_expired', 'released', 'released', 'released']);
    expect(trace.rows.every((r: { chunk_of: string }) => r.chunk_of === ids[0])).toBe(true);
  });

  it('defers a whole chunk while a producer holds its group: nothing of it is recorded, and all of it is once the producer commits', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await insertAction(c, 803, 't.third'));
    expect((await claim('w4', 't.third')).rows.map((r) => r.id)).toEqual(ids);
    const producer = await connect(db.url);
    try {
      await producer.query('BEGIN');
      await producer.query(`INSERT INTO actions (lock_id, type) VALUES (803, 't.third')`);
      // The head is done, the second is to be retried (it holds the group, so it needs no group lock of its own).
      const deferred = await finishAllDone('w4', ids, ['done', 'pending', 'pending']);
      expect(deferred.rows.map((r: { kind: string }) => r.kind)).toEqual(['deferred', 'deferred', 'deferred']);
      const held = await c.query(`SELECT a.status FROM actions AS a WHERE a.id = ANY($1::bigint[])`, [ids]);
      expect(held.rows.every((r: { status: string }) => r.status === 'running')).toBe(true);
      await producer.query('COMMIT');
      const finished = await finishAllDone('w4', ids, ['done', 'pending', 'pending']);
      expect(finished.rows.map((r: { kind: string }) => r.kind)).toEqual(['finished', 'finished', 'finished']);
      const after = await c.query(`SELECT a.status, a.is_head FROM actions AS a WHERE a.id = ANY($1::bigint[]) ORDER BY a.id`, [ids]);
      expect(after.rows).toEqual([
        { status: 'done', is_head: false },
        { status: 'pending', is_head: true },
        { status: 'pending', is_head: false },
      ]);
    } finally {
      await producer.end();
    }
  });

  it('ends each of two chunks of up to 1 000 claimed together at its own first action that cannot run now (one far in, one never)', async () => {
    // Group 811: 1 000 actions, the 700th scheduled for later. Group 812: 300 actions, all due.
    await c.query(
      `INSERT INTO actions (lock_id, type, run_at)
       SELECT 811, 't.big', CASE WHEN i = 700 THEN now() + interval '1 hour' ELSE now() END FROM generate_series(1, 1000) AS i ORDER BY i`,
    );
    await c.query(`INSERT INTO actions (lock_id, type) SELECT 812, 't.big' FROM generate_series(1, 300) AS i ORDER BY i`);
    const { rows } = await c.query<{ id: string; lock_id: string }>(
      `SELECT c.id::text, c.lock_id::text FROM aq_claim_chunks('w5', ARRAY['t.big'], ARRAY[NULL::int], 2, 60000, false, ARRAY['t.big'], ARRAY[1000]) AS c`,
    );
    const ids = async (lockId: number): Promise<string[]> =>
      (await c.query<{ id: string }>(`SELECT a.id::text AS id FROM actions AS a WHERE a.lock_id = $1 ORDER BY a.id`, [lockId])).rows.map((r) => r.id);
    const [big, small] = [await ids(811), await ids(812)];
    const claimedOf = (lockId: string) => rows.filter((r) => r.lock_id === lockId).map((r) => r.id);
    expect(claimedOf('811')).toEqual(big.slice(0, 699));
    expect(claimedOf('812')).toEqual(small);
    const running = await c.query(
      `SELECT lock_id::text, count(*)::int AS n, min(chunk_of)::text AS chunk FROM actions WHERE status = 'running' AND lock_id IN (811, 812) GROUP BY lock_id ORDER BY lock_id`,
    );
    expect(running.rows).toEqual([
      { lock_id: '811', n: 699, chunk: big[0] },
      { lock_id: '812', n: 300, chunk: small[0] },
    ]);
  });

  it('takes the head alone while a producer holds the group, and never a member past one another transaction is changing', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await insertAction(c, 802, 't.other'));
    const producer = await connect(db.url);
    const other = await connect(db.url);
    try {
      await producer.query('BEGIN');
      await producer.query(`INSERT INTO actions (lock_id, type) VALUES (802, 't.other')`);
      expect((await claim('w2', 't.other')).rows.map((r) => r.id)).toEqual([ids[0]]);
      await producer.query('COMMIT');
      await finishAllDone('w2', [ids[0]]);
      // ids[1] is now the head, handed to nobody (no types passed); another transaction locks ids[3].
      await other.query('BEGIN');
      await other.query(`SELECT 1 FROM actions WHERE id = $1 FOR UPDATE`, [ids[3]]);
      expect((await claim('w3', 't.other')).rows.map((r) => r.id)).toEqual([ids[1], ids[2]]);
      await other.query('ROLLBACK');
    } finally {
      await producer.end();
      await other.end();
    }
  });

  /** Leases the group's chunk to `worker` for `leaseMs`, and waits until that lease has expired. */
  const claimExpired = async (worker: string, type: string, leaseMs = 1): Promise<string[]> => {
    const { rows } = await c.query<{ id: string }>(
      `SELECT c.id::text FROM aq_claim_chunks($1, ARRAY[$2], ARRAY[NULL::int], 10, $3, false, ARRAY[$2], ARRAY[10]) AS c ORDER BY c.id`,
      [worker, type, leaseMs],
    );
    await waitFor(async () => (await c.query(`SELECT 1 FROM actions WHERE id = $1 AND lease_expires_at < now()`, [rows[0].id])).rowCount === 1, 5_000, 5);
    return rows.map((r) => r.id);
  };
  const reap = async (): Promise<string[]> =>
    (await c.query<{ action_id: string }>(`SELECT action_id::text FROM aq_reap_expired_leases(500) ORDER BY action_id`)).rows.map((r) => r.action_id);
  const states = async (ids: string[]) =>
    (
      await c.query<{ status: string; owner: string | null }>(`SELECT status, lease_owner AS owner FROM actions WHERE id = ANY($1::bigint[]) ORDER BY id`, [
        ids,
      ])
    ).rows.map((r) => `${r.status}${r.owner ? `:${r.owner}` : ''}`);

  // Without the rule of 043, the first round took the head and the
  // last member, leaving the second running: the head was claimable (w2 took
  // it alone) while w1 still held an action behind it, and the trace showed
  // that member's lost attempt overlapping the head's next one.
  it('the reaper never returns an earlier action of an expired chunk while a later one stays held (one it could not lock now)', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await insertAction(c, 804, 't.reap'));
    expect(await claimExpired('w1', 't.reap')).toEqual(ids);
    // Another transaction has the second member locked (a second reaper, a heartbeat, a cancel).
    const other = await connect(db.url);
    try {
      await other.query('BEGIN');
      await other.query(`SELECT 1 FROM actions WHERE id = $1 FOR UPDATE`, [ids[1]]);
      expect(await reap()).toEqual([ids[2]]);
      expect(await states(ids)).toEqual(['running:w1', 'running:w1', 'pending']);
      expect((await claim('w2', 't.reap')).rows).toEqual([]);
      await other.query('ROLLBACK');
    } finally {
      await other.end();
    }
    expect(await reap()).toEqual([ids[0], ids[1]]);
    expect(await states(ids)).toEqual(['pending', 'pending', 'pending']);
    expect((await claim('w2', 't.reap')).rows.map((r) => r.id)).toEqual(ids);
    const trace = await c.query(`SELECT outcome FROM action_attempts WHERE lock_id = 804 ORDER BY action_id`);
    expect(trace.rows.map((r: { outcome: string }) => r.outcome)).toEqual(['lease_expired', 'lease_expired', 'lease_expired']);
  });

  // Without the rule of 043, the head was reaped alone (its members' leases were
  // extended) and claimable while w1 held both members behind it.
  it('the reaper leaves an expired head whose members a heartbeat extended until they expire too', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await insertAction(c, 805, 't.split'));
    expect(await claimExpired('w1', 't.split')).toEqual(ids);
    // A heartbeat that found the head's row locked (SKIP LOCKED) extended only the members.
    const locker = await connect(db.url);
    try {
      await locker.query('BEGIN');
      await locker.query(`SELECT 1 FROM actions WHERE id = $1 FOR UPDATE`, [ids[0]]);
      const beat = await c.query<{ id: string; extended: boolean }>({ ...EXTEND_LEASES_SQL, values: ['w1', ids, [1, 1, 1], 1_500] });
      expect(Object.fromEntries(beat.rows.map((r) => [r.id, r.extended]))).toEqual({ [ids[0]]: false, [ids[1]]: true, [ids[2]]: true });
      await locker.query('ROLLBACK');
    } finally {
      await locker.end();
    }
    expect(await reap()).toEqual([]);
    expect(await states(ids)).toEqual(['running:w1', 'running:w1', 'running:w1']);
    expect((await claim('w2', 't.split')).rows).toEqual([]);
    // Once the members' leases have expired as well, the chunk goes back whole.
    await waitFor(async () => (await c.query(`SELECT 1 FROM actions WHERE id = $1 AND lease_expires_at < now()`, [ids[2]])).rowCount === 1, 5_000, 20);
    expect(await reap()).toEqual(ids);
    expect(await states(ids)).toEqual(['pending', 'pending', 'pending']);
  });

  // Without the rule of 043, the head (granted before the cutoff) was
  // released alone and claimable while w1 held its members: on a loaded
  // machine the members' leases are stamped up to a second after the head's.
  it('releases the unknown leases of a chunk from its end: never the head while a member granted after the cutoff stays leased', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await insertAction(c, 806, 't.unknown'));
    expect((await claim('w1', 't.unknown')).rows.map((r) => r.id)).toEqual(ids);
    const stamps = await c.query<{ cutoff: string; head_before: boolean }>(
      `SELECT min(a.attempt_started_at) FILTER (WHERE a.id <> $1)::text AS cutoff,
              max(a.attempt_started_at) FILTER (WHERE a.id = $1) < min(a.attempt_started_at) FILTER (WHERE a.id <> $1) AS head_before
       FROM actions AS a WHERE a.id = ANY($2::bigint[])`,
      [ids[0], ids],
    );
    expect(stamps.rows[0].head_before).toBe(true);
    const release = async (grantedBefore: string): Promise<string[]> =>
      (
        await c.query<{ action_id: string }>(`SELECT action_id::text FROM aq_release_unknown_leases('w1', '{}', $1::timestamptz) ORDER BY action_id`, [
          grantedBefore,
        ])
      ).rows.map((r) => r.action_id);
    // w1 never got the claim's answer; the cutoff falls between the head's grant and its members'.
    expect(await release(stamps.rows[0].cutoff)).toEqual([]);
    expect(await states(ids)).toEqual(['running:w1', 'running:w1', 'running:w1']);
    expect((await claim('w2', 't.unknown')).rows).toEqual([]);
    // At the next round the whole chunk is past the cutoff: released together.
    expect(await release('infinity')).toEqual(ids);
    expect(await states(ids)).toEqual(['pending', 'pending', 'pending']);
  });
});
