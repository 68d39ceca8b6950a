import request from 'supertest';
import { withTestApp } from '../support';

/**
 * Idempotency keys under concurrency (docs/guarantees.md, deduplication):
 * many producers sending one key at the same moment get one action between
 * them, and a key reused with another lockId is refused with 409.
 *
 * Seen to fail against deliberately broken builds (src/actions/enqueue/action-enqueuer.service.ts): the
 * lockId comparison removed from the duplicate check (a 200 with the other
 * group's action instead of 409), and a duplicate answered as created (many
 * 201s for one key).
 */
describe('idempotency keys under concurrency', () => {
  const t = withTestApp('idem_race', { env: { WORKER_ENABLED: 'false', DB_POOL_SIZE: '10' } });
  const SENDERS = 16;

  it(`gives ${SENDERS} concurrent senders of one key one action: one 201, the others 200 with its id`, async () => {
    const body = { type: 'instance.create', lockId: '4100', idempotencyKey: 'race-key-1', payload: { n: 1 } };
    const answers = await Promise.all(Array.from({ length: SENDERS }, () => request(t.url).post('/actions').send(body)));
    const statuses = answers.map((a) => a.status).sort((x, y) => x - y);
    expect(statuses).toEqual([...Array<number>(SENDERS - 1).fill(200), 201]);
    const ids = new Set(answers.map((a) => a.body.id as string));
    expect(ids.size).toBe(1);
    const { rows } = await t.pg.query(`SELECT id::text FROM actions WHERE idempotency_key = 'race-key-1'`);
    expect(rows).toEqual([{ id: [...ids][0] }]);
  });

  it('gives concurrent batches sharing keys one action per key', async () => {
    const keys = ['bk-1', 'bk-2', 'bk-3'];
    const batch = { actions: keys.map((k, i) => ({ type: 'instance.update', lockId: String(4200 + i), idempotencyKey: k })) };
    const answers = await Promise.all(Array.from({ length: 8 }, () => request(t.url).post('/actions/batch').send(batch)));
    expect(answers.map((a) => a.status).every((s) => s === 201 || s === 200)).toBe(true);
    const idsPerKey = keys.map((_, i) => new Set(answers.map((a) => a.body.actions[i].id as string)));
    expect(idsPerKey.map((s) => s.size)).toEqual([1, 1, 1]);
    const { rows } = await t.pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE idempotency_key = ANY($1)`, [keys]);
    expect(rows[0].n).toBe(3);
  });

  it('answers 409 naming idempotencyKey when the key is reused with another lockId, and writes nothing', async () => {
    const first = await request(t.url).post('/actions').send({ type: 'instance.create', lockId: '4300', idempotencyKey: 'moved-key' }).expect(201);
    const before = (await t.pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions`)).rows[0].n;
    const again = await request(t.url).post('/actions').send({ type: 'instance.create', lockId: '4301', idempotencyKey: 'moved-key' });
    expect(again.status).toBe(409);
    expect(String(again.body.message)).toMatch(/idempotencyKey "moved-key" was already used for action \d+ with another type or group \(lockId, groupKey\)/);
    expect(JSON.stringify(again.body.message)).toContain(first.body.id);
    // Without a lockId (no group) it is another lockId too.
    await request(t.url).post('/actions').send({ type: 'instance.create', idempotencyKey: 'moved-key' }).expect(409);
    expect((await t.pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions`)).rows[0].n).toBe(before);
  });
});
