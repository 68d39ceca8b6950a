import request from 'supertest';
import { startTestApp, withTestApp } from '../support';

/**
 * Without API_KEY any web page could cancel and retry
 * actions (a plain `fetch` needs no preflight when the route takes no body; an
 * auto-submitted form needs none either), and DNS rebinding gave a page the
 * whole API. The headers below are what a browser sends in each case.
 */
describe('without API_KEY, browsers cannot drive the service', () => {
  const t = withTestApp('browser', { env: { WORKER_ENABLED: 'false' } });
  const EVIL = 'https://evil.example';

  const pendingAction = async (): Promise<string> => {
    const { rows } = await t.pg.query<{ id: string }>(`INSERT INTO actions (type, payload) VALUES ('instance.create', '{}') RETURNING id::text`);
    return rows[0].id;
  };
  const statusOf = async (id: string): Promise<string> =>
    (await t.pg.query<{ status: string }>('SELECT status FROM actions WHERE id = $1', [id])).rows[0].status;
  const port = () => new URL(t.url).port;

  it("refuses another site's fetch of cancel (no preflight: no body, no content type)", async () => {
    const id = await pendingAction();
    const res = await request(t.url).post(`/actions/${id}/cancel`).set('Origin', EVIL).set('Sec-Fetch-Site', 'cross-site').set('Sec-Fetch-Mode', 'no-cors');
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/cross-site request refused/);
    // An older browser that sends Origin only.
    const originOnly = await request(t.url).post(`/actions/${id}/retry`).set('Origin', EVIL);
    expect(originOnly.status).toBe(403);
    expect(await statusOf(id)).toBe('pending');
  });

  it("refuses another site's auto-submitted form, whatever Origin says", async () => {
    const id = await pendingAction();
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain']) {
      const res = await request(t.url).post(`/actions/${id}/cancel`).set('Content-Type', type).set('Origin', 'null').send('');
      expect(`${type}: ${res.status}`).toBe(`${type}: 415`);
      // A browser that sends no Origin with a form still sends its content type.
      const bare = await request(t.url).post(`/actions/${id}/cancel`).set('Content-Type', type).send('');
      expect(`${type}: ${bare.status}`).toBe(`${type}: 415`);
    }
    expect(await statusOf(id)).toBe('pending');
  });

  it('refuses a Host it does not serve (DNS rebinding), reads included', async () => {
    const id = await pendingAction();
    const stats = await request(t.url).get('/stats').set('Host', `rebind.evil.example:${port()}`);
    expect(stats.status).toBe(403);
    expect(stats.body.message).toMatch(/Host "rebind\.evil\.example" is not served here.*ALLOWED_HOSTS/);
    // The rebound page is same-origin in the browser's eyes: Origin and Host agree.
    const cancel = await request(t.url)
      .post(`/actions/${id}/cancel`)
      .set('Host', `rebind.evil.example:${port()}`)
      .set('Origin', `http://rebind.evil.example:${port()}`)
      .set('Sec-Fetch-Site', 'same-origin');
    expect(cancel.status).toBe(403);
    expect(await statusOf(id)).toBe('pending');
    // Probes call by address: health stays open.
    await request(t.url).get('/health').set('Host', `10.1.2.3:${port()}`).expect(200);
  });

  it('serves its own pages, loopback names and programs that are not browsers', async () => {
    for (const host of [`127.0.0.1:${port()}`, `localhost:${port()}`, `[::1]:${port()}`, `app.localhost:${port()}`]) {
      const res = await request(t.url).get('/stats').set('Host', host);
      expect(`${host}: ${res.status}`).toBe(`${host}: 200`);
    }
    // The dashboard's own request (same origin).
    const a = await pendingAction();
    await request(t.url).post(`/actions/${a}/cancel`).set('Origin', `http://127.0.0.1:${port()}`).set('Sec-Fetch-Site', 'same-origin').expect(200);
    // curl, the client library: no Origin, no content type, no body.
    const b = await pendingAction();
    await request(t.url).post(`/actions/${b}/cancel`).expect(200);
    // A JSON enqueue from a program.
    await request(t.url).post('/actions').send({ type: 'instance.create' }).expect(201);
  });

  it('lets ALLOWED_HOSTS and CORS_ORIGINS widen what is served, and API_KEY lift the browser rules', async () => {
    const widened = await startTestApp(t.db.url, { WORKER_ENABLED: 'false', ALLOWED_HOSTS: 'queue.internal', CORS_ORIGINS: 'https://ops.example' });
    const keyed = await startTestApp(t.db.url, { WORKER_ENABLED: 'false', API_KEY: 'test-key-0123456789abcdef' });
    try {
      await request(widened.url).get('/stats').set('Host', 'queue.internal:80').expect(200);
      await request(widened.url)
        .get('/stats')
        .set('Host', `127.0.0.1:${new URL(widened.url).port}`)
        .expect(403);
      const id = await pendingAction();
      await request(widened.url).post(`/actions/${id}/cancel`).set('Host', 'queue.internal').set('Origin', 'https://ops.example').expect(200);
      await request(keyed.url).get('/stats').set('Host', 'queue.example.com').set('x-api-key', 'test-key-0123456789abcdef').expect(200);
    } finally {
      await widened.app.close();
      await keyed.app.close();
    }
  });
});
