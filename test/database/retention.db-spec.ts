import { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import { RetentionService } from '../../src/retention/retention.service';
import { startTestApp, waitFor, withTestApp } from '../support';

describe('retention', () => {
  // No worker: the scheduled job stays off and nothing claims the test rows.
  const t = withTestApp('retention', { env: { WORKER_ENABLED: 'false', RETENTION_DAYS: '7' } });
  const db = t.db;
  let app: INestApplication;
  let sql: Client;
  beforeAll(() => ({ app, pg: sql } = t));

  /** Inserts an action and moves it to `status` with finished_at `daysAgo` days back; returns its id. */
  async function action(lockId: number | null, onFailure: 'block' | 'skip', status: string, daysAgo: number | null): Promise<string> {
    const { rows } = await sql.query<{ id: string }>(`INSERT INTO actions (lock_id, type, on_failure) VALUES ($1, 'instance.create', $2) RETURNING id`, [
      lockId,
      onFailure,
    ]);
    const id = rows[0].id;
    if (status === 'running') {
      await sql.query(`UPDATE actions SET status = 'running', attempts = 1, lease_owner = 'w', lease_expires_at = now() + interval '1 hour' WHERE id = $1`, [
        id,
      ]);
    } else if (status !== 'pending') {
      await sql.query(`UPDATE actions SET status = $2, finished_at = now() - make_interval(days => $3::int) WHERE id = $1`, [id, status, daysAgo]);
    }
    return id;
  }

  const exists = async (id: string) => (await sql.query('SELECT 1 FROM actions WHERE id = $1', [id])).rowCount === 1;

  it('deletes old done, cancelled and failed-under-skip actions with their trace, and nothing that holds a group', async () => {
    const oldDone = await action(null, 'block', 'done', 30);
    await sql.query(`INSERT INTO action_attempts (action_id, attempt, worker_id, started_at, finished_at, outcome) VALUES ($1, 1, 'w', now(), now(), 'done')`, [
      oldDone,
    ]);
    const oldCancelled = await action(1, 'block', 'cancelled', 30);
    const oldSkipFailed = await action(1, 'skip', 'failed', 30);
    const oldBlockFailed = await action(1, 'block', 'failed', 30); // holds group 1
    const pendingBehind = await action(1, 'block', 'pending', null);
    const running = await action(2, 'block', 'running', null);
    const recentDone = await action(3, 'block', 'done', 1);

    const deleted = await app.get(RetentionService).purge(7);

    expect(deleted).toBe(3);
    for (const id of [oldDone, oldCancelled, oldSkipFailed]) expect(await exists(id)).toBe(false);
    for (const id of [oldBlockFailed, pendingBehind, running, recentDone]) expect(await exists(id)).toBe(true);
    expect((await sql.query('SELECT 1 FROM action_attempts WHERE action_id = $1', [oldDone])).rowCount).toBe(0);
    // The blocked group is still blocked by its failed head.
    const { rows } = await sql.query<{ head_id: string }>('SELECT head_id::text FROM action_groups WHERE lock_id = 1');
    expect(rows[0].head_id).toBe(oldBlockFailed);
  });

  it('deletes in batches of 1000 until nothing is left', async () => {
    await sql.query(`INSERT INTO actions (type) SELECT 'instance.create' FROM generate_series(1, 2500)`);
    await sql.query(`UPDATE actions SET status = 'done', finished_at = now() - interval '8 days' WHERE status = 'pending' AND lock_id IS NULL`);
    await expect(app.get(RetentionService).purge(7)).resolves.toBe(2500);
    const { rows } = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE status = 'done' AND finished_at < now() - interval '7 days'`);
    expect(rows[0].n).toBe(0);
  });

  it('keeps everything when RETENTION_DAYS is 0', async () => {
    const id = await action(null, 'block', 'done', 3650);
    await expect(app.get(RetentionService).purge(0)).resolves.toBe(0);
    expect(await exists(id)).toBe(true);
  });

  it('runs on its own every RETENTION_INTERVAL_MS in a worker instance', async () => {
    const id = await action(null, 'block', 'cancelled', 30);
    const worker = await startTestApp(db.url, { RETENTION_DAYS: '7', RETENTION_INTERVAL_MS: '1000', DEMO_HANDLERS: 'false' });
    try {
      await waitFor(async () => !(await exists(id)), 10_000);
    } finally {
      await worker.app.close();
    }
  });
});
