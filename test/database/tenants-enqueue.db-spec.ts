import request from 'supertest';
import { withTestApp } from '../support';

/**
 * Tenants on enqueue (migration 052, docs/tenants.md): the `tenant` field of
 * POST /actions and /actions/batch and the column for SQL producers, the
 * default tenant, one tenant per group while it holds work (SQLSTATE AQT01 in
 * SQL, 409 over REST, both naming the two tenants), and the name's rule (a 400
 * naming the field, nothing written). Workers are off: the actions stay pending.
 */
describe('tenants on enqueue', () => {
  const t = withTestApp('tenants_enqueue', { env: { WORKER_ENABLED: 'false' } });

  const count = async (): Promise<number> => (await t.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM actions')).rows[0].n;

  it('stores the tenant given over REST (single and batch) and the default tenant without one', async () => {
    const one = await request(t.url).post('/actions').send({ type: 'instance.update', lockId: 9001, tenant: 'acme' }).expect(201);
    expect(one.body.tenant).toBe('acme');
    const none = await request(t.url).post('/actions').send({ type: 'instance.update', lockId: 9002 }).expect(201);
    expect(none.body.tenant).toBe('default');
    const batch = await request(t.url)
      .post('/actions/batch')
      .send({
        actions: [
          { type: 'instance.update', groupKey: 'order:1', tenant: 'globex' },
          { type: 'instance.update', lockId: 9001, tenant: 'acme' },
          { type: 'instance.update', tenant: null },
        ],
      })
      .expect(201);
    expect(batch.body.actions.map((a: { tenant: string }) => a.tenant)).toEqual(['globex', 'acme', 'default']);
    const { rows } = await t.pg.query<{ id: string; tenant: string }>('SELECT id::text, tenant FROM actions WHERE id = ANY($1::bigint[]) ORDER BY id', [
      [one.body.id, none.body.id, ...batch.body.actions.map((a: { id: string }) => a.id)],
    ]);
    expect(rows.map((r) => r.tenant).sort()).toEqual(['acme', 'acme', 'default', 'default', 'globex']);
    expect((await request(t.url).get(`/actions/${one.body.id}`).expect(200)).body.tenant).toBe('acme');
  });

  it("refuses an SQL insert into a group holding another tenant's work with SQLSTATE AQT01 naming both tenants and the group", async () => {
    await t.pg.query(`INSERT INTO actions (lock_id, type, tenant) VALUES (9100, 'instance.update', 'acme')`);
    // The same tenant, and the default tenant into another group, are fine.
    await t.pg.query(`INSERT INTO actions (lock_id, type, tenant) VALUES (9100, 'instance.update', 'acme')`);
    const error = await t.pg.query(`INSERT INTO actions (lock_id, type, tenant) VALUES (9100, 'instance.update', 'globex')`).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'AQT01' });
    const message = (error as Error).message;
    expect(message).toContain('9100');
    expect(message).toContain('"acme"');
    expect(message).toContain('"globex"');
    // No tenant = the default tenant, which is another tenant too.
    await expect(t.pg.query(`INSERT INTO actions (lock_id, type) VALUES (9100, 'instance.update')`)).rejects.toMatchObject({ code: 'AQT01' });
    // A group the insert itself starts in one statement takes one tenant only.
    await expect(
      t.pg.query(`INSERT INTO actions (lock_id, type, tenant) VALUES (9101, 'instance.update', 'acme'), (9101, 'instance.update', 'globex')`),
    ).rejects.toMatchObject({ code: 'AQT01' });
    expect((await t.pg.query('SELECT count(*)::int AS n FROM actions WHERE lock_id = 9101')).rows[0].n).toBe(0);
  });

  it("lets a group change tenant once it holds no work, and never changes an action's tenant", async () => {
    const { rows } = await t.pg.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, tenant) VALUES (9200, 'instance.update', 'acme') RETURNING id::text`,
    );
    await expect(t.pg.query(`UPDATE actions SET tenant = 'globex' WHERE id = $1`, [rows[0].id])).rejects.toMatchObject({ code: '23514' });
    await t.pg.query(`UPDATE actions SET status = 'cancelled', finished_at = now() WHERE id = $1`, [rows[0].id]);
    const res = await request(t.url).post('/actions').send({ type: 'instance.update', lockId: 9200, tenant: 'globex' }).expect(201);
    expect(res.body.tenant).toBe('globex');
  });

  it('answers 409 over REST naming both tenants, and writes nothing of a batch', async () => {
    await request(t.url).post('/actions').send({ type: 'instance.update', groupKey: 'tenant-owned', tenant: 'acme' }).expect(201);
    const before = await count();
    const single = await request(t.url).post('/actions').send({ type: 'instance.update', groupKey: 'tenant-owned', tenant: 'globex' }).expect(409);
    expect(single.body.message).toContain('"acme"');
    expect(single.body.message).toContain('"globex"');
    const batch = await request(t.url)
      .post('/actions/batch')
      .send({
        actions: [
          { type: 'instance.update', lockId: 9300, tenant: 'globex' },
          { type: 'instance.update', groupKey: 'tenant-owned' },
        ],
      })
      .expect(409);
    expect(batch.body.message).toContain('"default"');
    expect(await count()).toBe(before);
  });

  it.each([
    ['an empty name', ''],
    ['a name of 129 characters', 'a'.repeat(129)],
    ['a space', 'acme corp'],
    ['a slash', 'acme/eu'],
    ['a leading dot', '.acme'],
    ['a non-ASCII letter', 'acmé'],
    ['a number', 42],
  ])('refuses %s with 400 naming the field, nothing written', async (_, tenant) => {
    const before = await count();
    const single = await request(t.url).post('/actions').send({ type: 'instance.update', tenant }).expect(400);
    expect(JSON.stringify(single.body.message)).toContain('tenant');
    const batch = await request(t.url)
      .post('/actions/batch')
      .send({ actions: [{ type: 'instance.update' }, { type: 'instance.update', tenant }] })
      .expect(400);
    expect(JSON.stringify(batch.body.message)).toContain('tenant');
    expect(await count()).toBe(before);
  });

  it('accepts a name of 128 characters of the whole set, and refuses bad names from SQL producers too', async () => {
    const name = `A0._:@-${'z'.repeat(121)}`;
    expect(name).toHaveLength(128);
    expect((await request(t.url).post('/actions').send({ type: 'instance.update', tenant: name }).expect(201)).body.tenant).toBe(name);
    await expect(t.pg.query(`INSERT INTO actions (type, tenant) VALUES ('instance.update', 'acme corp')`)).rejects.toMatchObject({
      code: '23514',
      constraint: 'actions_tenant_name',
    });
  });

  it('keeps per-tenant settings in range: weight in (0, 1000], max_running >= 1 or null', async () => {
    await t.pg.query(`INSERT INTO action_tenant_settings (tenant, weight, max_running) VALUES ('acme', 3, NULL), ('globex', 0.5, 4)`);
    for (const [weight, maxRunning] of [
      ['0', 'NULL'],
      ['-1', 'NULL'],
      [`'NaN'`, 'NULL'],
      [`'Infinity'`, 'NULL'],
      ['1', '0'],
    ]) {
      await expect(
        t.pg.query(`INSERT INTO action_tenant_settings (tenant, weight, max_running) VALUES ('bad', ${weight}, ${maxRunning})`),
      ).rejects.toMatchObject({
        code: '23514',
      });
    }
  });
});
