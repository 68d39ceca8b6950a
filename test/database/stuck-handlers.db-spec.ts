import { Module } from '@nestjs/common';
import request from 'supertest';
import { ActionHandler, ActionHandlerHost, QueuedAction } from '../../src/handlers';
import { waitFor, withTestApp } from '../support';

/** Releases every never-settling handler (at the end of the file, so the app closes tidy). */
const releases: (() => void)[] = [];
const started: string[] = [];

/** `test.never`: never settles and ignores its signal; times out after 1 s; retried after 10-50 ms. */
@ActionHandler({ type: 'test.never', timeoutMs: 1_000, backoffBaseMs: 10, backoffCapMs: 50 })
class NeverSettlesHandler extends ActionHandlerHost {
  handle(action: QueuedAction) {
    started.push(action.id);
    return new Promise<void>((resolve) => releases.push(resolve));
  }
}

/** `test.quick`: returns at once. */
@ActionHandler('test.quick')
class QuickHandler extends ActionHandlerHost {
  handle() {
    return Promise.resolve({ ok: true });
  }
}

@Module({ providers: [NeverSettlesHandler, QuickHandler] })
class StuckHandlersModule {}

/**
 * With default settings (16 slots, 5 attempts), actions
 * whose handler never settles and ignores its signal each hold at most one
 * stuck slot however often they are retried; other groups keep running; and
 * readiness and liveness fail once stuck slots reach STUCK_SLOTS_MAX_SHARE
 * (default 0.25: 4 of 16 slots).
 */
describe('stuck handlers', () => {
  const t = withTestApp('stuck_handlers', { env: { DEMO_HANDLERS: 'false' }, imports: [StuckHandlersModule] });

  afterAll(() => releases.splice(0).forEach((release) => release()));

  const insert = async (lockId: number, type: string) =>
    (await t.pg.query<{ id: string }>(`INSERT INTO actions (lock_id, type) VALUES ($1, $2) RETURNING id::text`, [lockId, type])).rows[0].id;
  const row = async (id: string) =>
    (await t.pg.query<{ status: string; attempts: number }>(`SELECT status, attempts FROM actions WHERE id = $1`, [id])).rows[0];
  /** Waits until the action has used its whole budget (5 attempts, each timed out) and failed. */
  const waitFailed = (id: string) => waitFor(async () => ((await row(id)).status === 'failed' ? true : null), 30_000);
  const health = async (path: '/health' | '/health/ready') => {
    const res = await request(t.url).get(path);
    return { status: res.status, worker: (res.body as { details: { worker: Record<string, unknown> } }).details.worker };
  };

  it('one slot per stuck action across its retries; neighbours start; readiness and liveness fail at 4 of 16 stuck slots', async () => {
    expect(t.settings.WORKER_CONCURRENCY).toBe(16);
    const stuck: string[] = [];
    for (let i = 1; i <= 3; i++) stuck.push(await insert(100 + i, 'test.never'));
    for (const id of stuck) await waitFailed(id);
    for (const id of stuck) expect(await row(id)).toEqual({ status: 'failed', attempts: 5 });
    // 15 handlers that never settle, 3 slots taken: below the share, still ready and live.
    expect(started).toHaveLength(15);
    const below = await health('/health/ready');
    expect(below).toMatchObject({ status: 200, worker: { busySlots: 3, stuckSlots: 3, stuckHandlers: 15, stuckSlotsLimit: 4 } });
    expect((await health('/health')).status).toBe(200);

    stuck.push(await insert(104, 'test.never'));
    await waitFailed(stuck[3]);
    expect(started).toHaveLength(20);
    // Neighbours of other groups start and finish on the 12 slots left.
    const neighbours = [];
    for (let i = 1; i <= 5; i++) neighbours.push(await insert(200 + i, 'test.quick'));
    for (const id of neighbours) await waitFor(async () => (await row(id)).status === 'done', 10_000);

    const ready = await health('/health/ready');
    expect(ready).toMatchObject({ status: 503, worker: { status: 'down', stuckSlots: 4, stuckSlotsLimit: 4 } });
    expect(String(ready.worker.message)).toMatch(/4 of 16 slots are held by handlers that ignored their abort signal/);
    expect((await health('/health')).status).toBe(503);
  }, 90_000);
});
