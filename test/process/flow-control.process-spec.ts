import request from 'supertest';
import type { Client } from 'pg';
import { checkTrace, formatTraceReport, ServiceProcess, sleep, startServiceProcess, waitFor, withTestDatabase } from '../support';

/**
 * Pauses across three service processes (docs/flow-control.md): a pause made
 * through one instance (or through SQL) is obeyed by all three, other work
 * runs on, and a resume starts the held work in group order within a second
 * (the resume's notification; WORKER_POLL_INTERVAL_MS is 1 s here, so a
 * resume seen only by the poll could take the whole second).
 */
const INSTANCES = 3;
/** How long "nothing of it starts" is watched: several claims and polls of every instance. */
const WATCH_MS = 1_500;
/** The bound on a resume reaching every instance. */
const RESUME_WITHIN_MS = 1_000;

describe('flow control across three instances', () => {
  const db = withTestDatabase('flow_procs');
  let c: Client;
  const services: ServiceProcess[] = [];

  beforeAll(async () => {
    c = await db.connect();
    for (let i = 0; i < INSTANCES; i++) services.push(await startServiceProcess(db.url, { WORKER_POLL_INTERVAL_MS: '1000', WORKER_CONCURRENCY: '4' }));
  });
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
  });

  const enqueue = async (lockIds: number[], type: string) =>
    (
      await c.query<{ id: string }>(
        `INSERT INTO actions (lock_id, type, payload) SELECT l, $2, '{"durationMs": 5}' FROM unnest($1::bigint[]) WITH ORDINALITY AS t(l, n) ORDER BY n RETURNING id::text`,
        [lockIds, type],
      )
    ).rows.map((r) => r.id);
  const countWhere = async (ids: string[], status: string) =>
    (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE id = ANY($1) AND status = $2`, [ids, status])).rows[0].n;
  const startedCount = async (ids: string[]) =>
    (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM action_attempts WHERE action_id = ANY($1)`, [ids])).rows[0].n;

  it('starts nothing of a paused group on any instance, runs other groups, and on resume starts it in order within 1 s', async () => {
    const G = 9_100;
    await request(services[0].url).post('/pauses').send({ scope: 'group', lockId: G, reason: 'downstream down' }).expect(201);
    const held = await enqueue([G, G, G, G, G], 'instance.update');
    const others = await enqueue(
      Array.from({ length: 30 }, (_, i) => 9_200 + (i % 10)),
      'instance.update',
    );
    await waitFor(async () => (await countWhere(others, 'done')) === others.length, 30_000);
    await sleep(WATCH_MS);
    expect(await startedCount(held)).toBe(0);
    // Each instance ran some of the other work: all three were claiming while the group was held.
    const { rows: workers } = await c.query(`SELECT count(DISTINCT worker_id)::int AS n FROM action_attempts WHERE action_id = ANY($1)`, [others]);
    expect(workers[0].n).toBe(INSTANCES);

    const pauseId = (await request(services[1].url).get('/pauses').expect(200)).body.items[0].id;
    const {
      rows: [{ at: resumedAt }],
    } = await c.query<{ at: Date }>(`SELECT clock_timestamp() AS at`);
    await request(services[2].url).delete(`/pauses/${pauseId}`).expect(204);
    await waitFor(async () => (await countWhere(held, 'done')) === held.length, 30_000);
    const {
      rows: [first],
    } = await c.query<{ started_at: Date }>(`SELECT min(started_at) AS started_at FROM action_attempts WHERE action_id = ANY($1)`, [held]);
    const latencyMs = first.started_at.getTime() - resumedAt.getTime();
    console.log(`flow control: first held action started ${latencyMs} ms after the resume (database clock)`);
    expect(latencyMs).toBeLessThan(RESUME_WITHIN_MS);
    const report = await checkTrace(c, { lockIds: [String(G)], expectDone: held });
    expect(report.ok ? '' : formatTraceReport(report)).toBe('');
  });

  it('holds one action type on every instance while another runs, then runs it after the resume', async () => {
    await c.query(`SELECT aq_pause_type('instance.delete', 'test')`);
    const held = await enqueue([9_300, 9_301, 9_302, 9_303], 'instance.delete');
    const running = await enqueue([9_300, 9_304, 9_305], 'instance.create');
    // instance.create behind instance.delete in group 9300 waits for it (group order); the other two run.
    await waitFor(async () => (await countWhere(running.slice(1), 'done')) === 2, 30_000);
    await sleep(WATCH_MS);
    expect(await startedCount([...held, running[0]])).toBe(0);
    expect((await request(services[0].url).get('/stats').expect(200)).body.paused).toEqual({ queue: false, types: 1, groups: 0 });

    await c.query(`SELECT aq_resume_type('instance.delete')`);
    await waitFor(async () => (await countWhere([...held, ...running], 'done')) === held.length + running.length, 30_000);
    const report = await checkTrace(c, { lockIds: ['9300'], expectDone: [held[0], running[0]] });
    expect(report.ok ? '' : formatTraceReport(report)).toBe('');
  });

  it('holds everything while the queue is paused, shown in /metrics, and runs it all after the resume', async () => {
    await request(services[1].url).post('/pauses').send({ scope: 'queue' }).expect(201);
    const held = await enqueue([9_400, 9_401, 9_400], 'instance.update');
    await sleep(WATCH_MS);
    expect(await startedCount(held)).toBe(0);
    const metrics = await request(services[2].url).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/action_queue_paused\{scope="queue"\} 1/);
    await c.query(`SELECT aq_resume_queue()`);
    await waitFor(async () => (await countWhere(held, 'done')) === held.length, 30_000);
  });
});
