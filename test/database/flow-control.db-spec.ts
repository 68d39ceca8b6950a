import request from 'supertest';
import type { Client } from 'pg';
import { MisbehavingHandlersModule } from '../fixtures/misbehaving-handlers';
import { checkTrace, formatTraceReport, insertAction, sleep, waitFor, withTestApp } from '../support';

/**
 * Flow control in one instance (src/database/sql/030-flow-control.up.sql and
 * 031-rate-limits.up.sql, where the claim and the hand-off obey it;
 * src/flow-control/): pauses by group, key, type and queue through SQL and
 * REST, the drain, `paused` in /stats, and a handler's back-off. The
 * three-instance version is test/process/flow-control.process-spec.ts.
 *
 * Seen to fail against deliberately broken builds: the group anti-join
 * disabled in aq_lease_actions only ("hands its successor to nobody": the
 * hand-off ran the paused group's next action), in the claim and the lease
 * ("paused by SQL": the group ran), and the runner not recognising a
 * RetryAfterError ("ctx.backOff": a charged failure).
 */

/** Long enough that "nothing started" is seen over several polls and claims (poll: 200 ms in tests). */
const HELD_MS = 1_000;
const POLL_MS = 200;

const statusesOf = async (pg: Client, ids: string[]) =>
  (await pg.query<{ id: string; status: string }>(`SELECT id::text, status FROM actions WHERE id = ANY($1) ORDER BY id`, [ids])).rows.map((r) => r.status);
const attemptsOf = async (pg: Client, ids: string[]) =>
  (await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM action_attempts WHERE action_id = ANY($1)`, [ids])).rows[0].n;
const allDone = (pg: Client, ids: string[]) => async () => (await statusesOf(pg, ids)).every((s) => s === 'done');

describe('flow control: pause, resume, drain, back-off', () => {
  const t = withTestApp('flow_control', { env: { WORKER_CONCURRENCY: '8', WORKER_POLL_INTERVAL_MS: String(POLL_MS) }, imports: [MisbehavingHandlersModule] });

  it('runs nothing of a group paused by SQL, runs other groups, and after the resume runs the group in order', async () => {
    const G = 7_100;
    await t.pg.query(`SELECT aq_pause_group($1, 'test')`, [G]);
    const paused = [];
    for (let i = 0; i < 3; i++) paused.push(await insertAction(t.pg, G, 'instance.update', { durationMs: 0 }));
    const others = [
      await insertAction(t.pg, G + 1, 'instance.update', { durationMs: 0 }),
      await insertAction(t.pg, null, 'instance.update', { durationMs: 0 }),
    ];
    await waitFor(allDone(t.pg, others), 10_000);
    await sleep(HELD_MS);
    expect(await statusesOf(t.pg, paused)).toEqual(['pending', 'pending', 'pending']);
    expect(await attemptsOf(t.pg, paused)).toBe(0);
    const stats = await request(t.url).get('/stats').expect(200);
    expect(stats.body.paused).toEqual({ queue: false, types: 0, groups: 1 });

    expect((await t.pg.query(`SELECT aq_resume_group($1) AS r`, [G])).rows[0].r).toBe(true);
    await waitFor(allDone(t.pg, paused), 10_000);
    const report = await checkTrace(t.pg, { lockIds: [String(G)], expectDone: paused });
    expect(report.ok ? '' : formatTraceReport(report)).toBe('');
    expect((await request(t.url).get('/stats').expect(200)).body.paused).toEqual({ queue: false, types: 0, groups: 0 });
  });

  it('pauses a string group key before its first action, and resumes it by key', async () => {
    await t.pg.query(`SELECT aq_pause_group_key('tenant:flow')`);
    const { rows } = await t.pg.query<{ id: string }>(
      `INSERT INTO actions (group_key, type, payload) VALUES ('tenant:flow', 'instance.update', '{"durationMs": 0}') RETURNING id::text`,
    );
    await sleep(HELD_MS);
    expect(await statusesOf(t.pg, [rows[0].id])).toEqual(['pending']);
    const listed = await request(t.url).get('/pauses?scope=group').expect(200);
    expect(listed.body.items.map((p: { groupKey: string }) => p.groupKey)).toEqual(['tenant:flow']);
    expect((await t.pg.query(`SELECT aq_resume_group_key('tenant:flow') AS r`)).rows[0].r).toBe(true);
    await waitFor(allDone(t.pg, [rows[0].id]), 10_000);
  });

  it('pauses one action type through REST while other types run, and resumes it by id', async () => {
    const pause = await request(t.url).post('/pauses').send({ scope: 'type', type: 'instance.delete', reason: 'maintenance' }).expect(201);
    expect(pause.body).toMatchObject({ scope: 'type', type: 'instance.delete', lockId: null, reason: 'maintenance', until: null });
    const held = [await insertAction(t.pg, 7_200, 'instance.delete', { durationMs: 0 }), await insertAction(t.pg, null, 'instance.delete', { durationMs: 0 })];
    const running = [await insertAction(t.pg, 7_201, 'instance.create', { durationMs: 0 })];
    await waitFor(allDone(t.pg, running), 10_000);
    await sleep(HELD_MS);
    expect(await statusesOf(t.pg, held)).toEqual(['pending', 'pending']);
    expect((await request(t.url).get('/stats').expect(200)).body.paused.types).toBe(1);

    await request(t.url).delete(`/pauses/${pause.body.id}`).expect(204);
    await waitFor(allDone(t.pg, held), 10_000);
    await request(t.url).delete(`/pauses/${pause.body.id}`).expect(404);
  });

  it('lets a running action finish when its group is paused, and hands its successor to nobody until the resume', async () => {
    const G = 7_300;
    const first = await insertAction(t.pg, G, 'instance.update', { durationMs: 800 });
    const second = await insertAction(t.pg, G, 'instance.update', { durationMs: 0 });
    await waitFor(async () => (await statusesOf(t.pg, [first]))[0] === 'running', 10_000);
    const pause = await request(t.url).post('/pauses').send({ scope: 'group', lockId: G }).expect(201);
    expect(pause.body.lockId).toBe(String(G));
    await waitFor(async () => (await statusesOf(t.pg, [first]))[0] === 'done', 10_000);
    await sleep(HELD_MS);
    expect(await statusesOf(t.pg, [second])).toEqual(['pending']);
    await request(t.url).delete(`/pauses/${pause.body.id}`).expect(204);
    await waitFor(allDone(t.pg, [second]), 10_000);
  });

  it('drains the queue: nothing new starts, the running action finishes, then the drain reports drained', async () => {
    const running = await insertAction(t.pg, 7_400, 'instance.update', { durationMs: 800 });
    await waitFor(async () => (await statusesOf(t.pg, [running]))[0] === 'running', 10_000);
    const started = await request(t.url).post('/queue/drain').expect(200);
    expect(started.body).toMatchObject({ draining: true, drained: false, reason: 'drain' });
    expect(started.body.running).toBeGreaterThanOrEqual(1);
    const waiting = await insertAction(t.pg, 7_401, 'instance.update', { durationMs: 0 });
    const drained = await waitFor(async () => {
      const state = await request(t.url).get('/queue/drain').expect(200);
      return state.body.drained ? state.body : null;
    }, 10_000);
    expect(drained).toMatchObject({ draining: true, running: 0, drained: true });
    expect(await statusesOf(t.pg, [running, waiting])).toEqual(['done', 'pending']);
    expect((await request(t.url).get('/stats').expect(200)).body.paused.queue).toBe(true);

    // Deletes answer 204 with no body (docs/operator-controls.md); seen failing before: 200 with the state.
    const stopped = await request(t.url).delete('/queue/drain').expect(204);
    expect(stopped.text).toBe('');
    expect((await request(t.url).get('/queue/drain').expect(200)).body).toMatchObject({ draining: false, drained: false });
    await waitFor(allDone(t.pg, [waiting]), 10_000);
  });

  // The decision of docs/operator-controls.md ("A type no handler is registered for"): controls that
  // hold work back accept such a type (set ahead of the handler's deploy), routes that create work refuse it.
  it('accepts a pause, a rate limit and a depth limit for a type no handler runs yet, and refuses a schedule or an action of it', async () => {
    const type = 'not.deployed.yet';
    const pause = await request(t.url).post('/pauses').send({ scope: 'type', type }).expect(201);
    await request(t.url).put(`/rate-limits/${type}`).send({ perSecond: 1 }).expect(200);
    await request(t.url).put(`/group-depth-limits/types/${type}`).send({ maxDepth: 10 }).expect(200);
    const schedule = await request(t.url).post('/schedules').send({ name: 'not-deployed', cron: '0 3 * * *', timeZone: 'UTC', type }).expect(400);
    expect(schedule.body.message).toEqual([expect.stringContaining(`type "${type}" has no registered handler`)]);
    const action = await request(t.url).post('/actions').send({ type }).expect(400);
    expect(action.body.message).toEqual([expect.stringContaining(`type "${type}" has no registered handler`)]);
    await request(t.url).delete(`/pauses/${pause.body.id}`).expect(204);
    await request(t.url).delete(`/rate-limits/${type}`).expect(204);
    await request(t.url).delete(`/group-depth-limits/types/${type}`).expect(204);
  });

  it('refuses a pause whose fields do not fit, naming the field', async () => {
    const bad = async (body: object, field: string) => {
      const res = await request(t.url).post('/pauses').send(body).expect(400);
      expect(JSON.stringify(res.body.message)).toContain(field);
    };
    await bad({ scope: 'everything' }, 'scope');
    await bad({ scope: 'type' }, 'type');
    await bad({ scope: 'group' }, 'lockId');
    await bad({ scope: 'queue', type: 'instance.create' }, 'type');
    await bad({ scope: 'group', lockId: 'x1' }, 'lockId');
    await bad({ scope: 'group', lockId: 1, groupKey: 'k' }, 'lockId');
    await bad({ scope: 'queue', forMs: 0 }, 'forMs');
    await bad({ scope: 'queue', reason: 'x'.repeat(251) }, 'reason');
    await bad({ scope: 'queue', color: 'red' }, 'color');
    await request(t.url).delete('/pauses/abc').expect(400);
    await request(t.url).get('/pauses?limit=0').expect(400);
    expect((await t.pg.query(`SELECT count(*)::int AS n FROM action_pauses`)).rows[0].n).toBe(0);
  });

  it('refuses a bad pause in SQL with 22023', async () => {
    await expect(t.pg.query(`SELECT aq_pause('type', NULL, NULL)`)).rejects.toMatchObject({ code: '22023' });
    await expect(t.pg.query(`SELECT aq_pause_type('x', NULL, 0)`)).rejects.toMatchObject({ code: '22023' });
  });

  it('refuses a lock id reserved for string group keys, over REST (400 lockId) and SQL (23514), as the insert does', async () => {
    const reserved = '-9223372036854775806';
    const res = await request(t.url).post('/pauses').send({ scope: 'group', lockId: reserved }).expect(400);
    expect(res.body.message).toEqual(['lockId is reserved for string group keys (lock ids up to -9223090561878065153); use groupKey, or another lockId']);
    await request(t.url).post('/pauses').send({ scope: 'group', lockId: -9223090561878065153n.toString() }).expect(400);
    await expect(t.pg.query(`SELECT aq_pause_group($1)`, [reserved])).rejects.toMatchObject({
      code: '23514',
      message: expect.stringContaining(`lock_id ${reserved} is reserved for string group keys`),
    });
    await expect(t.pg.query(`SELECT aq_pause('group', NULL, $1)`, [reserved])).rejects.toMatchObject({ code: '23514' });
    expect((await t.pg.query(`SELECT count(*)::int AS n FROM action_pauses`)).rows[0].n).toBe(0);
    // The edge of the range is an ordinary lock id; a key's own lock id is paused through its key, by SQL too.
    const edge = (-9223090561878065153n + 1n).toString();
    const ok = await request(t.url).post('/pauses').send({ scope: 'group', lockId: edge }).expect(201);
    await request(t.url).delete(`/pauses/${ok.body.id}`).expect(204);
    const { rows } = await t.pg.query<{ lock_id: string }>(`SELECT lock_id::text FROM aq_pause_group_key('tenant:reserved-ok')`);
    expect(BigInt(rows[0].lock_id) <= -9223090561878065153n).toBe(true);
    expect((await t.pg.query(`SELECT aq_resume_group_key('tenant:reserved-ok') AS r`)).rows[0].r).toBe(true);
  });

  it('answers a first pause by key with its key, and shows a paused group as paused in GET /groups', async () => {
    const first = await request(t.url).post('/pauses').send({ scope: 'group', groupKey: 'tenant:first-pause', reason: 'audit' }).expect(201);
    expect(first.body).toMatchObject({ scope: 'group', groupKey: 'tenant:first-pause', reason: 'audit' });
    const again = await request(t.url).post('/pauses').send({ scope: 'group', groupKey: 'tenant:first-pause' }).expect(201);
    expect(again.body).toMatchObject({ id: first.body.id, groupKey: 'tenant:first-pause', lockId: first.body.lockId });

    // Paused before its first action: the empty group says so.
    const empty = await request(t.url).get(`/groups/${first.body.lockId}`).expect(200);
    expect(empty.body).toMatchObject({ blocked: false, paused: true, pausedBy: { id: first.body.id, scope: 'group', reason: 'audit', until: null } });
    const { rows } = await t.pg.query<{ id: string }>(
      `INSERT INTO actions (group_key, type, payload) VALUES ('tenant:first-pause', 'instance.update', '{"durationMs": 0}') RETURNING id::text`,
    );
    const held = await request(t.url).get(`/groups/${first.body.lockId}`).expect(200);
    expect(held.body).toMatchObject({ head: { id: rows[0].id, status: 'pending' }, blocked: false, blockedReason: null, paused: true });
    await request(t.url).delete(`/pauses/${first.body.id}`).expect(204);
    await waitFor(allDone(t.pg, [rows[0].id]), 10_000);
    expect((await request(t.url).get(`/groups/${first.body.lockId}`).expect(200)).body).toMatchObject({ paused: false, pausedBy: null });

    // A pause of the head's type or of the whole queue holds the group too; its own pause is named first.
    const G = 7_250;
    const { rows: headRows } = await t.pg.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, run_at) VALUES ($1, 'instance.delete', now() + interval '1 hour') RETURNING id::text`,
      [G],
    );
    const head = headRows[0].id;
    const typePause = await request(t.url).post('/pauses').send({ scope: 'type', type: 'instance.delete', forMs: 60_000 }).expect(201);
    expect((await request(t.url).get(`/groups/${G}`).expect(200)).body).toMatchObject({
      head: { id: head },
      paused: true,
      pausedBy: { id: typePause.body.id, scope: 'type', until: typePause.body.until },
    });
    const groupPause = await request(t.url).post('/pauses').send({ scope: 'group', lockId: G }).expect(201);
    expect((await request(t.url).get(`/groups/${G}`).expect(200)).body.pausedBy).toMatchObject({ id: groupPause.body.id, scope: 'group' });
    await request(t.url).delete(`/pauses/${groupPause.body.id}`).expect(204);
    await request(t.url).delete(`/pauses/${typePause.body.id}`).expect(204);
    await t.pg.query(`UPDATE actions SET status = 'cancelled', finished_at = now() WHERE id = $1`, [head]);
  });

  it('validates pauses and the drain as every other route: JSON numbers only, one message per field, no unknown fields', async () => {
    const forMs = await request(t.url).post('/pauses').send({ scope: 'queue', forMs: '5000' }).expect(400);
    expect(forMs.body.message).toEqual(['forMs must be an integer from 1 to 604800000']);
    const type = await request(t.url).post('/pauses').send({ scope: 'type', type: 5 }).expect(400);
    expect(type.body.message).toEqual(['type must be 1..200 characters of letters, digits, ".", "_", "-", ":"']);
    const drain = await request(t.url).post('/queue/drain').send({ bogus: 1 }).expect(400);
    expect(drain.body.message).toEqual(['property bogus should not exist']);
    await request(t.url).post('/queue/drain').send([1]).expect(400);
    // A JSON null is an absent field: the target is then missing (400), never a null lock id for SQL (was 500).
    const cases: [object, string][] = [
      [{ scope: 'group', lockId: null }, 'lockId or groupKey is required for scope group'],
      [{ scope: 'group', groupKey: null }, 'lockId or groupKey is required for scope group'],
      [{ scope: 'type', type: null }, 'type is required for scope type'],
    ];
    for (const [body, message] of cases) expect((await request(t.url).post('/pauses').send(body).expect(400)).body.message).toEqual([message]);
    expect((await t.pg.query(`SELECT count(*)::int AS n FROM action_pauses`)).rows[0].n).toBe(0);
  });

  it('ctx.backOff delays the group head without charging an attempt; the group waits, other groups run', async () => {
    const G = 7_500;
    const BACK_OFF_MS = 700;
    const head = await insertAction(t.pg, G, 'test.backoff', { backOffAttempts: 2, backOffMs: BACK_OFF_MS }, 2);
    const next = await insertAction(t.pg, G, 'test.backoff', {});
    const other = await insertAction(t.pg, G + 1, 'test.backoff', {});
    await waitFor(allDone(t.pg, [head, next, other]), 15_000);

    const { rows: trace } = await t.pg.query<{ action_id: string; attempt: number; outcome: string; started_at: Date; finished_at: Date }>(
      `SELECT action_id::text, attempt, outcome, started_at, finished_at FROM action_attempts WHERE action_id = ANY($1) ORDER BY started_at`,
      [[head, next, other]],
    );
    const ofHead = trace.filter((r) => r.action_id === head);
    expect(ofHead.map((r) => r.outcome)).toEqual(['backed_off', 'backed_off', 'done']);
    // Three attempts under a budget of 2: none was charged.
    const { rows } = await t.pg.query(`SELECT attempts, charged_attempts, last_error FROM actions WHERE id = $1`, [head]);
    expect(rows[0]).toMatchObject({ attempts: 3, charged_attempts: 0, last_error: null });
    // Each back-off waited its time (database clock). run_at counts from the
    // finishing transaction's now(), a little before the trace's finished_at
    // (clock_timestamp()), hence the slack on a loaded machine.
    const FINISH_SLACK_MS = 150;
    for (let i = 1; i < ofHead.length; i++) {
      expect(ofHead[i].started_at.getTime() - ofHead[i - 1].finished_at.getTime()).toBeGreaterThanOrEqual(BACK_OFF_MS - FINISH_SLACK_MS);
    }
    // The group waited behind its head; the other group did not.
    const doneAt = ofHead[2].finished_at.getTime();
    expect(trace.find((r) => r.action_id === next)!.started_at.getTime()).toBeGreaterThanOrEqual(doneAt);
    expect(trace.find((r) => r.action_id === other)!.finished_at.getTime()).toBeLessThan(ofHead[1].started_at.getTime());
  });

  it('a RetryAfterError for the whole type holds every action of the type for that time, through a timed type pause', async () => {
    const BACK_OFF_MS = 1_500;
    const first = await insertAction(t.pg, 7_600, 'test.backoff', { backOffAttempts: 1, backOffMs: BACK_OFF_MS, wholeType: true, throwRetryAfter: true });
    await waitFor(async () => (await attemptsOf(t.pg, [first])) === 1, 10_000);
    const listed = await request(t.url).get('/pauses?scope=type').expect(200);
    expect(listed.body.items).toHaveLength(1);
    expect(listed.body.items[0]).toMatchObject({ type: 'test.backoff', reason: `back-off of action ${first}` });
    expect(listed.body.items[0].until).not.toBeNull();
    const pausedAt = Date.now();
    const sameType = await insertAction(t.pg, 7_601, 'test.backoff', {});
    const otherType = await insertAction(t.pg, 7_602, 'instance.update', { durationMs: 0 });
    await waitFor(allDone(t.pg, [otherType]), 10_000);
    expect(await statusesOf(t.pg, [sameType])).toEqual(['pending']);
    await waitFor(allDone(t.pg, [first, sameType]), 15_000);
    const { rows } = await t.pg.query<{ started_at: Date }>(`SELECT started_at FROM action_attempts WHERE action_id = $1`, [sameType]);
    // Not before the pause ended (the test's clock started after the pause was written, so this errs low).
    expect(rows[0].started_at.getTime() - pausedAt).toBeGreaterThanOrEqual(BACK_OFF_MS - 1_000);
    const { rows: firstRow } = await t.pg.query(`SELECT charged_attempts FROM actions WHERE id = $1`, [first]);
    expect(firstRow[0].charged_attempts).toBe(0);
  });
});
