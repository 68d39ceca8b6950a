import { Module } from '@nestjs/common';
import request from 'supertest';
import { ActionHandler, ActionHandlerHost } from '../../src/handlers';
import { metricSample as sample, sleep, waitFor, withTestApp } from '../support';

/** The pending states of `GET /stats` and the `action_queue_pending_by_state` gauge, as the metrics name them. */
const STATES = { due: 'due', scheduled: 'scheduled', paused: 'paused', waitingForRateLimit: 'waiting_for_rate_limit', behindHead: 'behind_head' };

type Breakdown = Record<keyof typeof STATES, number>;

/** Reads `/stats` and `/metrics` and checks that they agree and that the states sum to the pending count. */
async function readBoth(url: string): Promise<{ breakdown: Breakdown; oldest: number | null; gaugeOldest: number | undefined }> {
  const stats = (await request(url).get('/stats').expect(200)).body;
  const metrics = (await request(url).get('/metrics').expect(200)).text;
  const breakdown = stats.pendingBreakdown as Breakdown;
  expect(Object.values(breakdown).reduce((a, b) => a + b, 0)).toBe(stats.byStatus.pending);
  for (const [key, label] of Object.entries(STATES)) {
    expect(sample(metrics, 'action_queue_pending_by_state', `state="${label}"`)).toBe(breakdown[key as keyof Breakdown]);
  }
  return { breakdown, oldest: stats.oldestPendingAgeSeconds, gaugeOldest: sample(metrics, 'action_queue_oldest_pending_age_seconds') };
}

/**
 * A deliberate pause or a rate limit is not a stall: paused
 * heads and heads waiting for a token are states of their own in `/stats` and
 * `/metrics`, out of `due` and out of the oldest due age that
 * docs/operations.md says to alert on.
 */
describe('stats under flow control: pauses', () => {
  const t = withTestApp('stats_pauses', { env: { WORKER_ENABLED: 'false' } });

  it('counts a paused group as paused, not due, and leaves it out of the oldest due age', async () => {
    await request(t.url).post('/actions').send({ type: 'instance.create', lockId: '26' }).expect(201);
    await request(t.url).post('/actions').send({ type: 'instance.update', lockId: '26' }).expect(201);
    await request(t.url).post('/pauses').send({ scope: 'group', lockId: '26', reason: 'maintenance' }).expect(201);
    await sleep(1_500);
    // Only group 26, paused: nothing is due, and no age climbs.
    let read = await readBoth(t.url);
    expect(read.breakdown).toEqual({ due: 0, scheduled: 0, paused: 1, waitingForRateLimit: 0, behindHead: 1 });
    expect(read.oldest).toBeNull();
    expect(read.gaugeOldest).toBe(0);

    // An action of no group is due, while groups are paused; the age is its own (well under the paused one's 1.5 s).
    await request(t.url).post('/actions').send({ type: 'instance.create' }).expect(201);
    // A scheduled head of a paused group is paused (it will not start at its runAt).
    await request(t.url).post('/pauses').send({ scope: 'group', lockId: '28' }).expect(201);
    const runAt = new Date(Date.now() + 3600_000).toISOString();
    await request(t.url).post('/actions').send({ type: 'instance.create', lockId: '28', runAt }).expect(201);
    read = await readBoth(t.url);
    expect(read.breakdown).toEqual({ due: 1, scheduled: 0, paused: 2, waitingForRateLimit: 0, behindHead: 1 });
    expect(read.oldest).not.toBeNull();
    expect(read.oldest!).toBeLessThan(1.2);
  });

  it('counts the heads of a paused type, and every head while the queue is paused', async () => {
    await request(t.url).post('/actions').send({ type: 'instance.delete', lockId: '29' }).expect(201);
    await request(t.url).post('/actions').send({ type: 'instance.delete' }).expect(201);
    const typePause = await request(t.url).post('/pauses').send({ scope: 'type', type: 'instance.delete' }).expect(201);
    let read = await readBoth(t.url);
    // Group 26 (paused) and 28 (paused, scheduled) as before, plus the two of the paused type.
    expect(read.breakdown).toEqual({ due: 1, scheduled: 0, paused: 4, waitingForRateLimit: 0, behindHead: 1 });

    const queuePause = await request(t.url).post('/pauses').send({ scope: 'queue' }).expect(201);
    read = await readBoth(t.url);
    expect(read.breakdown).toEqual({ due: 0, scheduled: 0, paused: 5, waitingForRateLimit: 0, behindHead: 1 });
    expect(read.oldest).toBeNull();
    expect(read.gaugeOldest).toBe(0);

    await request(t.url).delete(`/pauses/${queuePause.body.id}`).expect(204);
    await request(t.url).delete(`/pauses/${typePause.body.id}`).expect(204);
    read = await readBoth(t.url);
    expect(read.breakdown).toEqual({ due: 3, scheduled: 0, paused: 2, waitingForRateLimit: 0, behindHead: 1 });
    expect(read.oldest).not.toBeNull();
  });
});

describe('stats under flow control: rate limits per type', () => {
  const t = withTestApp('stats_type_limits', { env: { WORKER_ENABLED: 'false' } });

  it('counts the due heads beyond what the bucket allows now as waiting for a token', async () => {
    await request(t.url).put('/rate-limits/instance.update').send({ perSecond: 0.001, burst: 1 }).expect(200);
    for (const lockId of ['31', '32', '33']) await request(t.url).post('/actions').send({ type: 'instance.update', lockId }).expect(201);
    await request(t.url).post('/actions').send({ type: 'instance.create', lockId: '34' }).expect(201);
    // One token: the claim may start one of the three now.
    await t.pg.query(`UPDATE action_rate_limits SET tokens = 1, refilled_at = now() WHERE type = 'instance.update'`);
    let read = await readBoth(t.url);
    expect(read.breakdown).toEqual({ due: 2, scheduled: 0, paused: 0, waitingForRateLimit: 2, behindHead: 0 });

    // An empty bucket: its type's heads are not claimable, so not in the oldest due age either.
    await t.pg.query(`UPDATE action_rate_limits SET tokens = 0, refilled_at = now() WHERE type = 'instance.update'`);
    await t.pg.query(`UPDATE actions SET created_at = now() - interval '1 hour', run_at = now() - interval '1 hour' WHERE type = 'instance.update'`);
    read = await readBoth(t.url);
    expect(read.breakdown).toEqual({ due: 1, scheduled: 0, paused: 0, waitingForRateLimit: 3, behindHead: 0 });
    expect(read.oldest).not.toBeNull();
    expect(read.oldest!).toBeLessThan(60);
  });
});

/** A handler that returns at once. */
@ActionHandler({ type: 'test.quick' })
class QuickHandler extends ActionHandlerHost {
  handle() {
    return Promise.resolve({ ok: true });
  }
}

@Module({ providers: [QuickHandler] })
class QuickHandlersModule {}

describe('stats under flow control: rate limits per group', () => {
  const t = withTestApp('stats_group_limits', { env: { WORKER_CONCURRENCY: '2' }, imports: [QuickHandlersModule] });

  it('counts a head its group bucket held back as waiting for a token, not as scheduled', async () => {
    await request(t.url).put('/rate-limits/groups/7700').send({ perSecond: 0.001, burst: 1 }).expect(200);
    const first = await request(t.url).post('/actions').send({ type: 'test.quick', lockId: '7700' }).expect(201);
    const second = await request(t.url).post('/actions').send({ type: 'test.quick', lockId: '7700' }).expect(201);
    await waitFor(async () => (await request(t.url).get(`/actions/${first.body.id}`)).body.status === 'done', 10_000);
    // The next claim finds no token for the second and moves its runAt to when one accrues (~1000 s).
    await waitFor(async () => (await t.pg.query(`SELECT 1 FROM action_group_rate_limits WHERE held_id = $1`, [second.body.id])).rowCount === 1, 10_000);
    const read = await readBoth(t.url);
    expect(read.breakdown).toEqual({ due: 0, scheduled: 0, paused: 0, waitingForRateLimit: 1, behindHead: 0 });
    expect(read.oldest).toBeNull();
  });
});
