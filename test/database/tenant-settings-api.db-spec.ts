import request from 'supertest';
import { withTestApp } from '../support';

/**
 * Per-tenant settings over REST (docs/tenants.md): GET /tenants, GET/PUT/DELETE
 * /tenants/:tenant/settings; a bad field or tenant name gets 400 naming it and
 * nothing is written; the rows are those the claim reads (action_tenant_settings).
 */
describe('tenant settings over REST', () => {
  const t = withTestApp('tenant_settings_api', { env: { WORKER_ENABLED: 'false' } });

  const stored = async () =>
    (await t.pg.query('SELECT tenant, weight, max_running, rate_per_second, rate_burst FROM action_tenant_settings ORDER BY tenant')).rows;

  it('answers the defaults for a tenant without settings, stores them whole, lists and deletes them', async () => {
    expect((await request(t.url).get('/tenants/acme/settings').expect(200)).body).toEqual({
      tenant: 'acme',
      weight: 1,
      maxRunning: null,
      ratePerSecond: null,
      rateBurst: null,
      stored: false,
      updatedAt: null,
    });
    const put = await request(t.url).put('/tenants/acme/settings').send({ weight: 3, maxRunning: 10 }).expect(200);
    expect(put.body).toMatchObject({ tenant: 'acme', weight: 3, maxRunning: 10, ratePerSecond: null, stored: true });
    await request(t.url).put('/tenants/globex/settings').send({ weight: 0.5, ratePerSecond: 20, rateBurst: 5 }).expect(200);
    expect(await stored()).toEqual([
      { tenant: 'acme', weight: 3, max_running: 10, rate_per_second: null, rate_burst: null },
      { tenant: 'globex', weight: 0.5, max_running: null, rate_per_second: 20, rate_burst: 5 },
    ]);
    // Whole: an absent field is back to its default.
    await request(t.url).put('/tenants/acme/settings').send({ weight: 2 }).expect(200);
    expect((await request(t.url).get('/tenants/acme/settings').expect(200)).body).toMatchObject({ weight: 2, maxRunning: null, stored: true });
    const page = await request(t.url).get('/tenants?limit=1').expect(200);
    expect(page.body.items.map((i: { tenant: string }) => i.tenant)).toEqual(['acme']);
    expect(page.body.nextCursor).toBe('acme');
    const next = await request(t.url).get(`/tenants?after=${page.body.nextCursor}`).expect(200);
    expect(next.body.items.map((i: { tenant: string }) => i.tenant)).toEqual(['globex']);
    await request(t.url).delete('/tenants/globex/settings').expect(204);
    await request(t.url).delete('/tenants/globex/settings').expect(404);
    expect((await stored()).map((r) => r.tenant)).toEqual(['acme']);
  });

  it.each([
    ['weight', 0],
    ['weight', -1],
    ['weight', 1001],
    ['weight', '3'],
    ['weight', null],
    ['maxRunning', 0],
    ['maxRunning', 1.5],
    ['maxRunning', '4'],
    ['ratePerSecond', 0],
    ['rateBurst', 0],
  ])('refuses %s = %j with 400 naming the field, nothing written', async (field, value) => {
    const before = await stored();
    const res = await request(t.url)
      .put('/tenants/initech/settings')
      .send({ weight: 1, [field]: value })
      .expect(400);
    expect(JSON.stringify(res.body.message)).toContain(field);
    expect(await stored()).toEqual(before);
  });

  it('refuses a bad tenant name in the path with 400 naming tenant', async () => {
    for (const path of ['/tenants/.hidden/settings', `/tenants/${'x'.repeat(129)}/settings`, '/tenants/a%20b/settings']) {
      const res = await request(t.url).put(path).send({ weight: 2 }).expect(400);
      expect(JSON.stringify(res.body.message)).toContain('tenant');
    }
    await request(t.url).get('/tenants/a%20b/settings').expect(400);
  });

  it('pauses and resumes a tenant over REST and SQL (scope tenant), and names the field of a bad target', async () => {
    const paused = await request(t.url).post('/pauses').send({ scope: 'tenant', tenant: 'acme', reason: 'over quota' }).expect(201);
    expect(paused.body).toMatchObject({ scope: 'tenant', tenant: 'acme', type: null, lockId: null, reason: 'over quota' });
    const list = await request(t.url).get('/pauses?scope=tenant').expect(200);
    expect(list.body.items.map((p: { tenant: string }) => p.tenant)).toEqual(['acme']);
    for (const [body, field] of [
      [{ scope: 'tenant' }, 'tenant'],
      [{ scope: 'tenant', tenant: 'a b' }, 'tenant'],
      [{ scope: 'type', type: 'x.y', tenant: 'acme' }, 'tenant'],
    ] as const) {
      const res = await request(t.url).post('/pauses').send(body).expect(400);
      expect(JSON.stringify(res.body.message)).toContain(field);
    }
    await request(t.url).delete(`/pauses/${paused.body.id}`).expect(204);
    await t.pg.query(`SELECT aq_pause_tenant('globex', 'by psql', 60000)`);
    expect((await t.pg.query(`SELECT tenant, until IS NOT NULL AS timed FROM action_pauses WHERE scope = 'tenant'`)).rows).toEqual([
      { tenant: 'globex', timed: true },
    ]);
    expect((await t.pg.query(`SELECT aq_resume_tenant('globex') AS r`)).rows[0].r).toBe(true);
    expect((await t.pg.query(`SELECT aq_resume_tenant('globex') AS r`)).rows[0].r).toBe(false);
    await expect(t.pg.query(`SELECT aq_pause_tenant('bad name')`)).rejects.toMatchObject({ code: '22023' });
  });
});
