import { connect, startServiceProcess, waitFor, withTestDatabase } from '../support';

describe('the service as a separate process', () => {
  // Empty: the service migrates it at start-up.
  const db = withTestDatabase('proc', { migrated: false });

  it('processes a plain SQL insert and exits 0 on SIGTERM', async () => {
    const svc = await startServiceProcess(db.url);
    const c = await connect(db.url);
    try {
      await c.query(`INSERT INTO actions (lock_id, type, payload) VALUES (26, 'instance.create', '{"instanceId": 26, "durationMs": 0}')`);
      await waitFor(async () => (await c.query(`SELECT 1 FROM actions WHERE status = 'done'`)).rowCount === 1);
    } finally {
      await c.end();
    }
    expect(await svc.stop()).toBe(0);
  });
});
