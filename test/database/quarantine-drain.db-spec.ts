import { INestApplication, Module } from '@nestjs/common';
import { Client } from 'pg';
import { ActionContext, ActionHandler, ActionHandlerHost, QueuedAction } from '../../src/handlers';
import { sleep, startTestApp, waitFor, withTestDatabase } from '../support';

/** Gates the test opens, by name, and what ran where. */
const state = {
  gates: new Map<string, { promise: Promise<void>; open: () => void }>(),
  runs: [] as { id: string; worker: string; start: number; end: number }[],
};

function gate(name: string) {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  state.gates.set(name, { promise, open });
}

async function hold(action: QueuedAction, ctx: ActionContext): Promise<void> {
  const start = Date.now();
  const name = (action.payload as { gate?: string }).gate;
  if (name) await state.gates.get(name)!.promise;
  state.runs.push({ id: action.id, worker: ctx.workerId, start, end: Date.now() });
}

/** `test.hold`: returns when the gate named in its payload opens (at once without one). */
@ActionHandler('test.hold')
class HoldHandler extends ActionHandlerHost {
  handle(action: QueuedAction, ctx: ActionContext) {
    return hold(action, ctx);
  }
}

/** `test.stuck`: like test.hold, with a 300 ms timeout it ignores: its handler stays stuck. */
@ActionHandler({ type: 'test.stuck', timeoutMs: 300 })
class StuckHandler extends ActionHandlerHost {
  handle(action: QueuedAction, ctx: ActionContext) {
    return hold(action, ctx);
  }
}

@Module({ providers: [HoldHandler, StuckHandler] })
class HoldModule {}

/**
 * Poison detection must not stall the fleet: a quarantined action is run
 * alone by one instance, an idle one at once or a busy one after 5 s
 * (QUARANTINE_PATIENCE_MS); the others carry on. Found by trying it: every
 * instance used to stop taking work as soon as any quarantined action was
 * due, until its own running handlers (minutes long, say) had finished.
 */
describe('quarantined actions run alone on one instance', () => {
  const db = withTestDatabase('quarantine_drain');
  const env = { WORKER_CONCURRENCY: '2', LEASE_MS: '3000', WORKER_POLL_INTERVAL_MS: '200' };
  let c: Client;
  const apps: INestApplication[] = [];

  beforeAll(async () => {
    c = await db.connect();
  });
  afterEach(async () => {
    for (const g of state.gates.values()) g.open();
    for (const app of apps.splice(0)) await app.close();
    state.gates.clear();
    state.runs.length = 0;
  });

  async function insert(lockId: number, type: string, payload: object = {}): Promise<string> {
    const { rows } = await c.query<{ id: string }>(`INSERT INTO actions (lock_id, type, payload) VALUES ($1, $2, $3) RETURNING id::text`, [
      lockId,
      type,
      payload,
    ]);
    return rows[0].id;
  }

  /** A pending head, quarantined as the reaper leaves it after its instance was lost. */
  async function insertQuarantined(lockId: number): Promise<string> {
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, run_at) VALUES ($1, 'test.hold', now() + interval '1 hour') RETURNING id::text`,
      [lockId],
    );
    await c.query(`UPDATE actions SET quarantined = true, run_at = now() WHERE id = $1`, [rows[0].id]);
    return rows[0].id;
  }

  const status = async (id: string) => (await c.query(`SELECT status FROM actions WHERE id = $1`, [id])).rows[0].status as string;
  const ran = (id: string) => state.runs.find((r) => r.id === id);

  it('a busy instance keeps working while it waits for an idle one, then drains and runs the action alone', async () => {
    const a = await startTestApp(db.url, { ...env, WORKER_ID: 'worker-A' }, [HoldModule]);
    apps.push(a.app);
    gate('busy');
    const busy = await insert(1, 'test.hold', { gate: 'busy' });
    await waitFor(async () => (await status(busy)) === 'running');
    const quarantined = await insertQuarantined(2);
    const quarantinedAt = Date.now();
    await sleep(600); // a few polls have seen it due

    // Not idle and not yet patient: new work still runs here at once.
    const normal = await insert(3, 'test.hold');
    await waitFor(async () => (await status(normal)) === 'done', 1_500);
    expect(await status(quarantined)).toBe('pending');

    // After 5 s with no idle instance, this one leases it and drains: nothing new starts, the action waits.
    await waitFor(async () => (await status(quarantined)) === 'running', 8_000);
    expect(Date.now() - quarantinedAt).toBeGreaterThanOrEqual(4_500);
    const during = await insert(4, 'test.hold');
    await sleep(800);
    expect(await status(during)).toBe('pending');
    expect(ran(quarantined)).toBeUndefined();

    // The busy handler returns: the quarantined action runs alone, then normal work resumes.
    state.gates.get('busy')!.open();
    await waitFor(async () => (await status(during)) === 'done', 5_000);
    expect(await status(quarantined)).toBe('done');
    expect(ran(quarantined)!.start).toBeGreaterThanOrEqual(ran(busy)!.end);
    expect(ran(during)!.start).toBeGreaterThanOrEqual(ran(quarantined)!.end);
  }, 30_000);

  it('an idle instance takes it at once; an instance with a stuck handler never holds it', async () => {
    const a = await startTestApp(db.url, { ...env, WORKER_ID: 'worker-A' }, [HoldModule]);
    apps.push(a.app);
    gate('stuck');
    const {
      rows: [{ id: stuck }],
    } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload, max_attempts) VALUES (11, 'test.stuck', '{"gate": "stuck"}', 1) RETURNING id::text`,
    );
    // Timed out (its one attempt failed) while its handler ignores the signal: it is now stuck.
    await waitFor(async () => (await status(stuck)) === 'failed', 3_000);
    const quarantined = await insertQuarantined(12);
    await sleep(6_000);
    // Past the patience, but a stuck handler may never return: A leaves it to others.
    expect(await status(quarantined)).toBe('pending');
    const normal = await insert(13, 'test.hold');
    await waitFor(async () => (await status(normal)) === 'done', 1_500);

    const b = await startTestApp(db.url, { ...env, WORKER_ID: 'worker-B' }, [HoldModule]);
    apps.push(b.app);
    const startedB = Date.now();
    await waitFor(async () => (await status(quarantined)) === 'done', 3_000);
    expect(Date.now() - startedB).toBeLessThan(2_000);
    expect(ran(quarantined)!.worker).toBe('worker-B');
  }, 30_000);
});
