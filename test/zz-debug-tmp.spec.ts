import { Client } from 'pg';
import request from 'supertest';
import { createTestDatabase } from './support/test-database';
import { startTestApp } from './support/test-app';
it('debug', async () => {
  const db = await createTestDatabase('dbg');
  const { app, url } = await startTestApp(db.url, { LOG_LEVEL: 'error', WORKER_CONCURRENCY: '8' });
  const cs = await Promise.all([0, 1].map(async () => { const c = new Client({ connectionString: db.url }); await c.connect(); return c; }));
  const errs: string[] = [];
  const deadline = Date.now() + 8000;
  await Promise.all([
    ...cs.map(async (c) => { while (Date.now() < deadline) { const vals = Array.from({ length: 50 }, () => `(${7000 + Math.floor(Math.random() * 50)}, 'instance.update', '{"durationMs": 1}')`); await c.query(`INSERT INTO actions (lock_id, type, payload) VALUES ${vals.join(',')}`).catch((e) => errs.push('sql ' + e.code)); } }),
    (async () => { while (Date.now() < deadline) { const actions = Array.from({ length: 50 }, () => ({ type: 'instance.update', lockId: String(7000 + Math.floor(Math.random() * 50)), payload: { durationMs: 1 } })); const r = await request(url).post('/actions/batch').send({ actions }); if (r.status !== 201) errs.push(`rest ${r.status} ${JSON.stringify(r.body)}`); } })(),
  ]);
  console.log(errs.slice(0, 20));
  await Promise.all(cs.map((c) => c.end())); await app.close(); await db.drop();
}, 60000);
