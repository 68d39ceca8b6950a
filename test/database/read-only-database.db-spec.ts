import request from 'supertest';
import { connect, sleep, TEST_SERVER_URL, terminateBackends, waitFor, withTestApp } from '../support';

/** How long the database refuses writes (ms): a failover window of a few seconds, as a managed PostgreSQL's takes. */
const READ_ONLY_WINDOW_MS = 8_000;

/**
 * A database that refuses writes (a failover to a replica,
 * `default_transaction_read_only`) is the service's trouble, not the client's:
 * enqueues answer 503 (never 500), readiness reports it, and the service
 * recovers without a restart once writes are allowed again.
 */
describe('a read-only database window', () => {
  const t = withTestApp('read_only', { env: { DEMO_HANDLERS: 'true' } });

  /** @param cutSessions end the sessions opened before the switch, as a failover does. */
  const setReadOnly = async (on: boolean, cutSessions = true) => {
    const admin = await connect(TEST_SERVER_URL);
    try {
      await admin.query(
        on ? `ALTER DATABASE "${t.db.name}" SET default_transaction_read_only = on` : `ALTER DATABASE "${t.db.name}" RESET default_transaction_read_only`,
      );
    } finally {
      await admin.end();
    }
    // As in a failover: the sessions opened before the switch are cut.
    if (cutSessions) await terminateBackends(t.db.name);
  };
  const enqueue = () =>
    request(t.url)
      .post('/actions')
      .send({ type: 'instance.create', lockId: '17', payload: { durationMs: 0 } });

  afterAll(async () => {
    const admin = await connect(TEST_SERVER_URL);
    await admin.query(`ALTER DATABASE "${t.db.name}" RESET default_transaction_read_only`).finally(() => admin.end());
  });

  it.each([
    ['sessions cut at both switches (a failover and back)', true, 2],
    ['sessions kept when writes come back (ALTER DATABASE ... RESET alone)', false, 4],
  ])('answers 503 to enqueues and reports readiness down while writes are refused, then recovers without restart: %s', async (_case, cutBack, expectedRows) => {
    expect((await enqueue()).status).toBe(201);
    expect((await request(t.url).get('/health/ready')).status).toBe(200);

    await setReadOnly(true);
    const windowEnds = Date.now() + READ_ONLY_WINDOW_MS;
    const statuses = new Map<number, number>();
    let readinessDown = false;
    let readinessBody: unknown;
    while (Date.now() < windowEnds) {
      const res = await enqueue();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const ready = await request(t.url).get('/health/ready');
      if (ready.status === 503) {
        readinessDown = true;
        readinessBody = ready.body;
      }
      await sleep(200);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 503: expect.any(Number) });
    expect(readinessDown).toBe(true);
    expect(readinessBody).toMatchObject({ status: 'error', error: { writable: { status: 'down' } } });

    await setReadOnly(false, cutBack);
    await waitFor(async () => (await enqueue()).status === 201, 15_000);
    await waitFor(async () => (await request(t.url).get('/health/ready')).status === 200, 15_000);
    // Nothing from the window was written: the accepted enqueues only (two per case so far).
    const { rows } = await (await t.db.connect()).query<{ n: number }>(`SELECT count(*)::int AS n FROM actions`);
    expect(rows[0].n).toBe(expectedRows);
  });
});
