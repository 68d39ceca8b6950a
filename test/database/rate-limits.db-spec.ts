import { Module } from '@nestjs/common';
import request from 'supertest';
import { ActionHandler, ActionHandlerHost } from '../../src/handlers';
import { waitFor, withTestApp } from '../support';

/** A type whose handler sets a default rate limit: 5 a second, bursts of 2. */
@ActionHandler({ type: 'test.limited', rateLimit: { perSecond: 5, burst: 2 } })
class LimitedHandler extends ActionHandlerHost {
  handle() {
    return Promise.resolve({ ok: true });
  }
}

@Module({ providers: [LimitedHandler] })
class LimitedHandlersModule {}

/**
 * Rate limits per type in one instance (src/database/sql/031-rate-limits.up.sql,
 * docs/flow-control.md): the handler's default, the REST override and its
 * clearing, validation, and the bucket's pace. The two-instance measurement
 * is test/process/rate-limits.process-spec.ts.
 */
describe('rate limits per action type', () => {
  const t = withTestApp('rate_limits', { env: { WORKER_CONCURRENCY: '8' }, imports: [LimitedHandlersModule] });

  it("writes the handler's default at start-up and paces the type's starts by its bucket", async () => {
    const listed = await request(t.url).get('/rate-limits').expect(200);
    expect(listed.body.items).toEqual([
      { type: 'test.limited', perSecond: 5, burst: 2, source: 'handler', handlerDefault: { perSecond: 5, burst: 2 }, updatedAt: expect.any(String) },
    ]);
    const N = 12;
    const { rows } = await t.pg.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type) SELECT 8100 + g % 4, 'test.limited' FROM generate_series(1, $1::int) g RETURNING id::text`,
      [N],
    );
    const ids = rows.map((r) => r.id);
    await waitFor(
      async () => (await t.pg.query(`SELECT count(*)::int AS n FROM actions WHERE id = ANY($1) AND status = 'done'`, [ids])).rows[0].n === N,
      20_000,
    );
    const { rows: span } = await t.pg.query<{ ms: number; releases: number }>(
      `SELECT extract(epoch FROM max(started_at) - min(started_at)) * 1000 AS ms, count(*) FILTER (WHERE outcome <> 'done')::int AS releases
       FROM action_attempts WHERE action_id = ANY($1)`,
      [ids],
    );
    // A full bucket (up to burst + 0.999 tokens, 031) starts 2 at once; the other 10 wait for
    // their tokens: at least (10 - 0.999) / 5 = 1.8 s, less a few ms between a token's time
    // (taken at the claim's start) and the start recorded by the lease. Without the limit: a few ms.
    expect(Number(span[0].ms)).toBeGreaterThanOrEqual(1_750);
    expect(span[0].releases).toBe(0);
  });

  it('overrides the default at runtime, falls back to it when cleared, and refuses bad values naming the field', async () => {
    const set = await request(t.url).put('/rate-limits/test.limited').send({ perSecond: 50, burst: 10 }).expect(200);
    expect(set.body).toMatchObject({ type: 'test.limited', perSecond: 50, burst: 10, source: 'override', handlerDefault: { perSecond: 5, burst: 2 } });
    const other = await request(t.url).put('/rate-limits/instance.create').send({ perSecond: 0.5 }).expect(200);
    expect(other.body).toMatchObject({ perSecond: 0.5, burst: 1, source: 'override', handlerDefault: null });
    expect((await request(t.url).get('/rate-limits').expect(200)).body.items.map((l: { type: string }) => l.type)).toEqual(['instance.create', 'test.limited']);

    // 204 with no body, as every other delete; the default now in force is GET's to show.
    const cleared = await request(t.url).delete('/rate-limits/test.limited').expect(204);
    expect(cleared.text).toBe('');
    const afterClear = (await request(t.url).get('/rate-limits').expect(200)).body.items;
    expect(afterClear.find((l: { type: string }) => l.type === 'test.limited')).toMatchObject({ perSecond: 5, burst: 2, source: 'handler' });
    await request(t.url).delete('/rate-limits/test.limited').expect(404);
    await request(t.url).delete('/rate-limits/instance.create').expect(204);
    expect((await request(t.url).get('/rate-limits').expect(200)).body.items.map((l: { type: string }) => l.type)).toEqual(['test.limited']);

    const bad = async (path: string, body: object, field: string) => {
      const res = await request(t.url).put(path).send(body).expect(400);
      expect(JSON.stringify(res.body.message)).toContain(field);
    };
    await bad('/rate-limits/x', { perSecond: 0 }, 'perSecond');
    await bad('/rate-limits/x', { perSecond: 'fast' }, 'perSecond');
    await bad('/rate-limits/x', { perSecond: 1, burst: 0 }, 'burst');
    await bad('/rate-limits/x', { perSecond: 1, burst: 1.5 }, 'burst');
    await bad('/rate-limits/x', {}, 'perSecond');
    await bad(`/rate-limits/${encodeURIComponent('bad type')}`, { perSecond: 1 }, 'type');
    // One message per field, whatever is wrong with it.
    for (const body of [{}, { perSecond: 'fast' }, { perSecond: '5' }, { perSecond: 0 }, { perSecond: 1e9 }]) {
      const res = await request(t.url).put('/rate-limits/x').send(body).expect(400);
      expect(res.body.message).toHaveLength(1);
      expect(res.body.message[0]).toMatch(/^perSecond (is required: a|must be a) number from 0\.\d+ to \d+$/);
    }
    await expect(t.pg.query(`SELECT aq_set_rate_limit('x', 0)`)).rejects.toMatchObject({ code: '22023' });
  });
});
