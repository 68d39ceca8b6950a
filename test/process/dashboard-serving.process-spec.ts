import { INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { ActionQueueModule } from '../../src/action-queue/action-queue.module';
import { DASHBOARD_CSP } from '../../src/dashboard/dashboard-assets';
import { cloneTestDatabase, startTestApp, TestDatabase } from '../support';

const KEY = 'dashboard-key-0123456789';

describe('dashboard: served at /ui by the API instances', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await cloneTestDatabase('dashboard_serving');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('serves the built page and its files without the key, with a strict CSP, while every data route still needs the key', async () => {
    const { app, url } = await startTestApp(db.url, { API_KEY: KEY, WORKER_ENABLED: 'false' });
    try {
      await request(url).get('/ui').expect(301).expect('Location', '/ui/');
      const page = await request(url)
        .get('/ui/')
        .expect(200)
        .expect('Content-Type', /text\/html/);
      expect(page.headers['content-security-policy']).toBe(DASHBOARD_CSP);
      expect(page.headers['cache-control']).toBe('no-cache');
      // Everything the page loads comes from the service itself (no CDN).
      const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
      expect(assets.length).toBeGreaterThanOrEqual(2);
      for (const asset of assets) {
        expect(asset).toMatch(/^\.\/assets\//);
        const file = await request(url)
          .get(`/ui/${asset.slice(2)}`)
          .expect(200);
        expect(file.headers['cache-control']).toContain('immutable');
      }
      // A deep link (hash routes never reach the server, but a reload of /ui/anything still gets the page).
      await request(url)
        .get('/ui/groups/26')
        .expect(200)
        .expect('Content-Type', /text\/html/);
      // A file that does not exist is a 404, not the page served as a script.
      await request(url).get('/ui/nope.js').expect(404);
      await request(url).get('/ui/assets/missing.css').expect(404);
      // Data needs the key, as before; so does anything that only looks like /ui.
      await request(url).get('/stats').expect(401);
      await request(url).get('/groups/blocked').expect(401);
      await request(url).get('/stats/activity').expect(401);
      await request(url).get('/uix').expect(401);
      await request(url).post('/ui/').expect(401);
      await request(url).get('/groups/blocked').set('Authorization', `Bearer ${KEY}`).expect(200);
    } finally {
      await app.close();
    }
  });

  it('is off with DASHBOARD_ENABLED=false and in worker-only instances (API_ENABLED=false)', async () => {
    const roles: Record<string, string>[] = [{ DASHBOARD_ENABLED: 'false' }, { API_ENABLED: 'false' }];
    for (const env of roles) {
      const { app, url } = await startTestApp(db.url, { ...env, WORKER_ENABLED: env.API_ENABLED === 'false' ? 'true' : 'false', API_KEY: KEY });
      try {
        const res = await request(url).get('/ui/').set('x-api-key', KEY);
        expect(`${JSON.stringify(env)} ${res.status}`).toBe(`${JSON.stringify(env)} 404`);
        // Without the dashboard nothing under /ui is public.
        await request(url).get('/ui/').expect(401);
      } finally {
        await app.close();
      }
    }
  });
});

describe('dashboard: served by ActionQueueModule inside an app, under its route prefix, when asked', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await cloneTestDatabase('dashboard_module');
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** A host app with the module's routes under /queue; `dashboard` as given. */
  async function hostApp(dashboard: boolean): Promise<INestApplication> {
    @Module({ imports: [ActionQueueModule.forRoot({ database: { url: db.url }, worker: { enabled: false }, routes: { prefix: 'queue', dashboard } })] })
    class HostAppModule {}
    const app = await NestFactory.create(HostAppModule, { logger: false });
    await app.listen(0, '127.0.0.1');
    return app;
  }

  it('serves the page and its files at /queue/ui, beside the routes it reads, and nothing at /ui', async () => {
    const app = await hostApp(true);
    try {
      const url = `http://127.0.0.1:${app.getHttpServer().address().port}`;
      const page = await request(url)
        .get('/queue/ui/')
        .expect(200)
        .expect('Content-Type', /text\/html/);
      expect(page.headers['content-security-policy']).toBe(DASHBOARD_CSP);
      const assets = [...page.text.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => m[1]);
      expect(assets.length).toBeGreaterThanOrEqual(2);
      for (const asset of assets) await request(url).get(`/queue/ui/${asset}`).expect(200);
      await request(url).get('/queue/ui/nope.js').expect(404);
      // The page calls the API one level above itself: /queue/stats.
      await request(url).get('/queue/stats').expect(200);
      await request(url).get('/ui/').expect(404);
    } finally {
      await app.close();
    }
  });

  it('serves no page unless asked', async () => {
    const app = await hostApp(false);
    try {
      await request(`http://127.0.0.1:${app.getHttpServer().address().port}`).get('/queue/ui/').expect(404);
    } finally {
      await app.close();
    }
  });
});
