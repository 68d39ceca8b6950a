import { Module } from '@nestjs/common';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ActionContext, ActionFencedError, ActionHandler, ActionHandlerHost, ActionTransactionMisuseError, QueuedAction } from '../../src';
import { TransactionalCompletion } from '../../src/queue/attempt/transactional-completion';
import { CLAIM_ACTIONS_SQL } from '../../src/queue/sql/claim-actions.sql';
import { LeasedActionRow } from '../../src/queue/sql/leased-action.sql';
import { REAP_EXPIRED_LEASES_SQL } from '../../src/queue/sql/lost-attempts.sql';
import { connect, sleep, startTestApp, waitFor, withTestDatabase } from '../support';

/** The user's table the handlers write to, one row per effect. */
const EFFECTS_TABLE = `CREATE TABLE IF NOT EXISTS tx_effects (n bigserial PRIMARY KEY, action_id bigint NOT NULL, lock_id bigint, attempt int NOT NULL)`;

/** Contexts kept after their handler returned (for the misuse case). */
const kept: ActionContext[] = [];
const misuse: { id: string; error: unknown }[] = [];

@ActionHandler({ type: 'tx.effect', backoffBaseMs: 10, backoffCapMs: 20 })
class EffectHandler extends ActionHandlerHost {
  async handle(action: QueuedAction, ctx: ActionContext) {
    const mode = action.payload.mode;
    if (mode === 'nested') {
      return ctx.transaction(async (manager) => {
        await manager.query(`INSERT INTO tx_effects (action_id, lock_id, attempt) VALUES ($1, $2, $3)`, [action.id, action.lockId, ctx.attempt]);
        await ctx.transaction(async () => 'inner');
      });
    }
    if (mode === 'keep') {
      kept.push(ctx);
      return 'returned plainly';
    }
    const result = await ctx.transaction(async (manager) => {
      await manager.query(`INSERT INTO tx_effects (action_id, lock_id, attempt) VALUES ($1, $2, $3)`, [action.id, action.lockId, ctx.attempt]);
      if (ctx.attempt <= Number(action.payload.failUntil ?? 0)) throw new Error(`callback failed at attempt ${ctx.attempt}`);
      if (mode === 'unstorable') return { n: BigInt(1) } as unknown;
      return { wrote: action.id, attempt: ctx.attempt };
    });
    if (mode === 'throwAfter') throw new Error('thrown after the commit');
    if (mode === 'again') {
      await ctx.transaction(async () => null).catch((error: unknown) => misuse.push({ id: action.id, error }));
    }
    return { ignored: true, result };
  }
}

/** Counts its group's completed actions in the group state, with an effect row in the same transaction. */
@ActionHandler({ type: 'tx.counter', backoffBaseMs: 10, backoffCapMs: 20 })
class CounterHandler extends ActionHandlerHost {
  async handle(action: QueuedAction, ctx: ActionContext) {
    if (action.payload.mode === 'outside') {
      ctx.groupState.set({ outside: true });
      return null;
    }
    return ctx.transaction(async (manager) => {
      const state = await ctx.groupState.get<{ count: number; ids: string[] }>();
      // Holds the state it read, as a slow handler does.
      if (typeof action.payload.holdMs === 'number') await sleep(action.payload.holdMs);
      await manager.query(`INSERT INTO tx_effects (action_id, lock_id, attempt) VALUES ($1, $2, $3)`, [action.id, action.lockId, ctx.attempt]);
      const next = { count: (state?.count ?? 0) + 1, ids: [...(state?.ids ?? []), action.id], pad: 'x'.repeat(Number(action.payload.pad ?? 0)) };
      ctx.groupState.set(next);
      // Read back: this transaction's own value.
      const seen = await ctx.groupState.get<{ count: number }>();
      return { count: seen?.count };
    });
  }
}

@Module({ providers: [EffectHandler, CounterHandler] })
class EffectModule {}

describe('completing an action in the handler’s own transaction (ctx.transaction)', () => {
  const db = withTestDatabase('tx_complete');
  let c: Client;

  beforeAll(async () => {
    c = await connect(db.url);
    await c.query(EFFECTS_TABLE);
  });
  afterAll(async () => {
    await c?.end();
  });

  const effectsOf = async (id: string) =>
    (await c.query<{ attempt: number }>(`SELECT attempt FROM tx_effects WHERE action_id = $1 ORDER BY n`, [id])).rows.map((r) => r.attempt);
  const traceOf = async (id: string) =>
    (await c.query<{ attempt: number; outcome: string }>(`SELECT attempt, outcome FROM action_attempts WHERE action_id = $1 ORDER BY attempt`, [id])).rows;
  const ended = (url: string, id: string) =>
    waitFor(async () => {
      const r = await request(url).get(`/actions/${id}`);
      return ['done', 'failed', 'cancelled'].includes(r.body.status) ? r.body : null;
    });

  it('commits the handler’s writes with the action’s done: one effect, one trace row, the callback’s result, order kept in the group', async () => {
    const { app, url } = await startTestApp(db.url, { WORKER_CONCURRENCY: '4' }, [EffectModule]);
    try {
      const { body } = await request(url)
        .post('/actions/batch')
        .send({ actions: Array.from({ length: 6 }, (_, i) => ({ type: 'tx.effect', lockId: 41 + (i % 2), payload: { i } })) })
        .expect(201);
      const ids: string[] = body.actions.map((a: { id: string }) => a.id);
      const done = await Promise.all(ids.map((id) => ended(url, id)));
      for (const [i, action] of done.entries()) {
        expect(action.status).toBe('done');
        expect(action.result).toEqual({ wrote: ids[i], attempt: 1 });
        expect(await effectsOf(ids[i])).toEqual([1]);
        expect(await traceOf(ids[i])).toEqual([{ attempt: 1, outcome: 'done' }]);
      }
      // Each group's effects in id order (the next action started only after the commit).
      for (const lockId of [41, 42]) {
        const { rows } = await c.query<{ action_id: string }>(`SELECT action_id::text FROM tx_effects WHERE lock_id = $1 ORDER BY n`, [lockId]);
        const order = rows.map((r) => r.action_id);
        expect(order).toEqual([...order].sort((a, b) => Number(a) - Number(b)));
        expect(order).toHaveLength(3);
      }
    } finally {
      await app.close();
    }
  });

  it('rolls back a failing callback (charged, retried), keeps a committed done when the handler throws after it, and refuses misuse readably', async () => {
    const { app, url } = await startTestApp(db.url, { WORKER_CONCURRENCY: '4' }, [EffectModule]);
    try {
      const post = async (payload: Record<string, unknown>, lockId: number) =>
        (await request(url).post('/actions').send({ type: 'tx.effect', lockId, payload }).expect(201)).body.id as string;
      const failing = await post({ failUntil: 2 }, 51);
      const throwsAfter = await post({ mode: 'throwAfter' }, 52);
      const nested = await post({ mode: 'nested' }, 53);
      const unstorable = await post({ mode: 'unstorable' }, 54);
      const again = await post({ mode: 'again' }, 55);
      const keep = await post({ mode: 'keep' }, 56);

      const f = await ended(url, failing);
      expect(f.status).toBe('done');
      expect(f.chargedAttempts).toBe(2);
      expect((await traceOf(failing)).map((t) => t.outcome)).toEqual(['error', 'error', 'done']);
      // Only the committed attempt's write is visible.
      expect(await effectsOf(failing)).toEqual([3]);

      const t = await ended(url, throwsAfter);
      expect(t.status).toBe('done');
      expect(t.result).toEqual({ wrote: throwsAfter, attempt: 1 });
      expect(await traceOf(throwsAfter)).toEqual([{ attempt: 1, outcome: 'done' }]);

      const n = await ended(url, nested);
      expect(n.status).toBe('failed');
      expect(n.lastError).toMatch(/ActionTransactionMisuseError.*already open: nested calls are not supported/);
      expect(await effectsOf(nested)).toEqual([]);

      const u = await ended(url, unstorable);
      expect(u.status).toBe('failed');
      expect(u.lastError).toMatch(/JSON/);
      expect(await effectsOf(unstorable)).toEqual([]);

      await ended(url, again);
      expect(misuse.find((m) => m.id === again)?.error).toBeInstanceOf(ActionTransactionMisuseError);
      expect(String(misuse.find((m) => m.id === again)?.error)).toMatch(/already completed by ctx.transaction/);

      await ended(url, keep);
      await expect(kept[0].transaction(async () => 'late')).rejects.toThrow(/called after its attempt ended; nothing was written/);
    } finally {
      await app.close();
    }
  });

  it('refuses the commit of a holder whose lease was taken over: nothing of it visible, the new holder’s commit stands', async () => {
    const dataSource = new DataSource({ type: 'postgres', url: db.url });
    await dataSource.initialize();
    try {
      await c.query(`INSERT INTO actions (lock_id, type) VALUES (61, 'tx.fenced'), (61, 'tx.fenced')`);
      const claim = async (worker: string, leaseMs: number): Promise<LeasedActionRow> => {
        for (const suspect of [false, true]) {
          const { rows } = await c.query<LeasedActionRow>({ ...CLAIM_ACTIONS_SQL, values: [worker, ['tx.fenced'], [null], 1, leaseMs, suspect] });
          if (rows.length > 0) return rows[0];
        }
        throw new Error(`nothing to claim for ${worker}`);
      };
      const first = await claim('holder-a', 300);
      let endedA = false;
      const a = new TransactionalCompletion(dataSource, 'holder-a', first, 65_536, () => (endedA = true), 60_000);
      let release!: () => void;
      const taken = new Promise<void>((resolve) => (release = resolve));
      // Holder A passes the early check, writes, then stalls while its lease expires and B takes the action.
      const committingA = a.run(async (manager) => {
        await manager.query(`INSERT INTO tx_effects (action_id, lock_id, attempt) VALUES ($1, 61, $2)`, [first.id, first.attempts]);
        await taken;
        return 'from a';
      });
      await sleep(400);
      const { rows: reaped } = await c.query({ ...REAP_EXPIRED_LEASES_SQL, values: [10] });
      expect(reaped.map((r: { action_id: string }) => r.action_id)).toEqual([first.id]);
      const second = await claim('holder-b', 60_000);
      expect(second.id).toBe(first.id);
      expect(second.attempts).toBe(first.attempts + 1);
      const b = new TransactionalCompletion(dataSource, 'holder-b', second, 65_536, () => undefined, 60_000);
      await b.run(async (manager) => {
        await manager.query(`INSERT INTO tx_effects (action_id, lock_id, attempt) VALUES ($1, 61, $2)`, [second.id, second.attempts]);
        return 'from b';
      });
      release();
      await expect(committingA).rejects.toBeInstanceOf(ActionFencedError);
      await expect(committingA).rejects.toThrow(/lease was lost .* before the commit/);
      expect(endedA).toBe(false);
      expect(a.committed).toBe(false);
      expect(await effectsOf(first.id)).toEqual([second.attempts]);
      const { rows } = await c.query(`SELECT status, result FROM actions WHERE id = $1`, [first.id]);
      expect(rows[0]).toEqual({ status: 'done', result: 'from b' });
      expect((await traceOf(first.id)).map((x) => x.outcome)).toEqual(['lease_expired', 'done']);
      // The early check refuses a stale holder before its callback runs.
      const stale = new TransactionalCompletion(dataSource, 'holder-a', first, 65_536, () => undefined, 60_000);
      let ran = false;
      await expect(stale.run(async () => (ran = true))).rejects.toThrow(/may no longer complete: it is done/);
      expect(ran).toBe(false);
      // The group moved on to its next action.
      await waitFor(async () => (await c.query(`SELECT 1 FROM actions WHERE lock_id = 61 AND is_head AND status = 'pending'`)).rowCount === 1);
    } finally {
      await dataSource.destroy();
    }
  });
  it('ends a transaction left idle longer than the lease on the server, so its locks do not outlive the holder (a holder cut off mid-transaction)', async () => {
    const dataSource = new DataSource({ type: 'postgres', url: db.url });
    await dataSource.initialize();
    try {
      await c.query(`INSERT INTO actions (lock_id, type) VALUES (62, 'tx.fenced')`);
      await c.query(`INSERT INTO action_group_states (lock_id, state, version) VALUES (62, '{"n": 1}', 1)`);
      const { rows } = await c.query<LeasedActionRow>({ ...CLAIM_ACTIONS_SQL, values: ['holder-c', ['tx.fenced'], [null], 1, 60_000, false] });
      expect(rows).toHaveLength(1);
      const held = rows[0];
      // An idle limit of 1 s: the callback reads (and locks) the state, then goes quiet for 4 s, as a cut-off holder does.
      const completion = new TransactionalCompletion(dataSource, 'holder-c', held, 65_536, () => undefined, 1_000);
      const committing = completion.run(async (manager) => {
        await manager.query(`INSERT INTO tx_effects (action_id, lock_id, attempt) VALUES ($1, 62, $2)`, [held.id, held.attempts]);
        await completion.groupState.get();
        await sleep(4_000);
        return 'too late';
      });
      await sleep(300);
      // The next holder's read of the state (or an operator's delete) waits only until the server ends the idle session.
      const waitStarted = Date.now();
      await c.query(`SELECT state FROM action_group_states WHERE lock_id = 62 FOR UPDATE`);
      expect(Date.now() - waitStarted).toBeLessThan(2_500);
      await expect(committing).rejects.toThrow();
      expect(completion.committed).toBe(false);
      expect(await effectsOf(held.id)).toEqual([]);
      const { rows: after } = await c.query(`SELECT status FROM actions WHERE id = $1`, [held.id]);
      expect(after[0].status).toBe('running');
    } finally {
      await dataSource.destroy();
    }
  });
});

describe('per-group state (ctx.groupState)', () => {
  const db = withTestDatabase('tx_group_state');
  let c: Client;

  beforeAll(async () => {
    c = await connect(db.url);
    await c.query(EFFECTS_TABLE);
  });
  afterAll(async () => {
    await c?.end();
  });

  const finalOf = (url: string, id: string) =>
    waitFor(async () => {
      const r = await request(url).get(`/actions/${id}`);
      return ['done', 'failed', 'cancelled'].includes(r.body.status) ? r.body : null;
    });

  it('commits the state with each completion (version = completed actions), serves and deletes it over REST, by lock id and by key', async () => {
    const { app, url } = await startTestApp(db.url, { WORKER_CONCURRENCY: '4', GROUP_STATE_MAX_BYTES: '400' }, [EffectModule]);
    try {
      const { body } = await request(url)
        .post('/actions/batch')
        .send({ actions: Array.from({ length: 5 }, () => ({ type: 'tx.counter', lockId: 71 })) })
        .expect(201);
      const ids: string[] = body.actions.map((a: { id: string }) => a.id);
      const done = await Promise.all(ids.map((id) => finalOf(url, id)));
      expect(done.map((a) => a.result)).toEqual([1, 2, 3, 4, 5].map((count) => ({ count })));
      const state = await request(url).get('/groups/71/state').expect(200);
      expect(state.body).toMatchObject({ lockId: '71', version: 5, state: { count: 5, ids } });
      expect(new Date(state.body.updatedAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
      // GET /groups/:lockId names its version and last change.
      expect((await request(url).get('/groups/71').expect(200)).body.storedState).toEqual({ version: 5, updatedAt: state.body.updatedAt });
      expect((await request(url).get('/groups/72').expect(200)).body.storedState).toBeNull();
      const { rows } = await c.query(`SELECT version::int AS version, state->'count' AS count FROM action_group_states WHERE lock_id = 71`);
      expect(rows).toEqual([{ version: 5, count: 5 }]);

      // By key.
      const keyed = await request(url).post('/actions').send({ type: 'tx.counter', groupKey: 'account:7' }).expect(201);
      await finalOf(url, keyed.body.id);
      const byKey = await request(url)
        .get(`/groups/by-key/${encodeURIComponent('account:7')}/state`)
        .expect(200);
      expect(byKey.body).toMatchObject({ version: 1, state: { count: 1, ids: [keyed.body.id] } });
      await request(url).get('/groups/by-key/never-used/state').expect(404);
      await request(url).get('/groups/72/state').expect(404);
      await request(url).get('/groups/x/state').expect(400);

      // An operator's delete; the next action starts again at version 1.
      await request(url).delete('/groups/71/state').expect(204);
      await request(url).delete('/groups/71/state').expect(404);
      await request(url).get('/groups/71/state').expect(404);
      await request(url)
        .delete(`/groups/by-key/${encodeURIComponent('account:7')}/state`)
        .expect(204);
      // A 404 names the group in the caller's words, not by its internal lock id.
      const gone = await request(url)
        .get(`/groups/by-key/${encodeURIComponent('account:7')}/state`)
        .expect(404);
      expect(gone.body.message).toBe('groupKey "account:7" has no state');
      const again = await request(url).post('/actions').send({ type: 'tx.counter', lockId: 71 }).expect(201);
      expect((await finalOf(url, again.body.id)).result).toEqual({ count: 1 });
      expect((await request(url).get('/groups/71/state').expect(200)).body.version).toBe(1);

      // Over GROUP_STATE_MAX_BYTES: the attempt fails (charged), nothing of it written.
      const big = await request(url)
        .post('/actions')
        .send({ type: 'tx.counter', lockId: 73, payload: { pad: 500 } })
        .expect(201);
      const failed = await request(url)
        .post('/actions')
        .send({ type: 'tx.counter', lockId: 74, payload: { mode: 'outside' } })
        .expect(201);
      const b = await waitFor(async () => {
        const r = await request(url).get(`/actions/${big.body.id}`);
        return r.body.chargedAttempts >= 1 ? r.body : null;
      });
      expect(b.lastError).toMatch(/RangeError: group state of lock 73 is \d+ bytes as JSON, over GROUP_STATE_MAX_BYTES \(400\)/);
      expect((await c.query(`SELECT 1 FROM tx_effects WHERE action_id = $1`, [big.body.id])).rowCount).toBe(0);
      expect((await c.query(`SELECT 1 FROM action_group_states WHERE lock_id = 73`)).rowCount).toBe(0);
      const f = await waitFor(async () => {
        const r = await request(url).get(`/actions/${failed.body.id}`);
        return r.body.chargedAttempts >= 1 ? r.body : null;
      });
      expect(f.lastError).toMatch(/ActionTransactionMisuseError: ctx.groupState.set\(\) works only inside ctx.transaction/);
      await request(url).post(`/actions/${big.body.id}/cancel`);
      await request(url).post(`/actions/${failed.body.id}/cancel`);
    } finally {
      await app.close();
    }
  });

  it("keeps an operator's delete made while a handler holds the state it read, and serves versions past 2^31", async () => {
    const { app, url } = await startTestApp(db.url, { WORKER_CONCURRENCY: '4' }, [EffectModule]);
    try {
      const first = await request(url).post('/actions').send({ type: 'tx.counter', lockId: 75 }).expect(201);
      await finalOf(url, first.body.id);
      const slow = await request(url)
        .post('/actions')
        .send({ type: 'tx.counter', lockId: 75, payload: { holdMs: 1_500 } })
        .expect(201);
      await waitFor(async () => (await c.query(`SELECT 1 FROM actions WHERE id = $1 AND status = 'running'`, [slow.body.id])).rowCount === 1);
      await sleep(300); // its get() has run
      // Waits for the handler's commit, then removes what it wrote: the reset holds.
      await request(url).delete('/groups/75/state').expect(204);
      expect((await finalOf(url, slow.body.id)).status).toBe('done');
      await request(url).get('/groups/75/state').expect(404);

      await c.query(`INSERT INTO action_group_states (lock_id, state, version) VALUES (77, '1', 2147483648)`);
      expect((await request(url).get('/groups/77/state').expect(200)).body.version).toBe(2_147_483_648);
      expect((await request(url).get('/groups/77').expect(200)).body.storedState.version).toBe(2_147_483_648);
    } finally {
      await app.close();
    }
  });

  it('retention deletes the states of groups with no work left after GROUP_STATE_RETENTION_DAYS, and keeps the others', async () => {
    const { app } = await startTestApp(db.url, { WORKER_ENABLED: 'false' }, [EffectModule]);
    try {
      await c.query(`INSERT INTO actions (lock_id, type) VALUES (82, 'tx.counter')`);
      await c.query(
        `INSERT INTO action_group_states (lock_id, state, version, updated_at) VALUES
           (81, '{"old": true}', 3, now() - interval '40 days'),
           (82, '{"old": true, "work": "pending"}', 2, now() - interval '40 days'),
           (83, '{"recent": true}', 1, now() - interval '2 days')`,
      );
      const { RetentionService } = await import('../../src/retention/retention.service');
      expect(await app.get(RetentionService).purgeGroupStates(30)).toBe(1);
      const { rows } = await c.query<{ lock_id: string }>(`SELECT lock_id::text FROM action_group_states WHERE lock_id BETWEEN 81 AND 83 ORDER BY lock_id`);
      expect(rows.map((r) => r.lock_id)).toEqual(['82', '83']);
      expect(await app.get(RetentionService).purgeGroupStates(0)).toBe(0);
    } finally {
      await app.close();
    }
  });

  it('answers 413 for a state over MAX_RESPONSE_BYTES, naming its size and the SQL that reads it, and serves a JSON null state', async () => {
    const { app, url } = await startTestApp(db.url, { WORKER_ENABLED: 'false', MAX_RESPONSE_BYTES: '65536' }, [EffectModule]);
    try {
      await c.query(
        `INSERT INTO action_group_states (lock_id, state, version) VALUES (91, jsonb_build_object('pad', repeat('x', 120000)), 1), (92, 'null', 1)`,
      );
      const refused = await request(url).get('/groups/91/state').expect(413);
      expect(refused.body.message).toMatch(
        /^the state of group 91 is 120011 bytes as JSON, over MAX_RESPONSE_BYTES \(65536\); read it with SQL: SELECT state FROM action_group_states WHERE lock_id = 91$/,
      );
      expect((await request(url).get('/groups/92/state').expect(200)).body).toMatchObject({ state: null, version: 1 });
    } finally {
      await app.close();
    }
  });
});
