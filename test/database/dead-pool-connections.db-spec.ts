import type { Pool } from 'pg';
import { PG_POOL } from '../../src/database/pg-pool.provider';
import { sleep, terminateBackends, withTestApp } from '../support';

/**
 * A pool connection whose backend dies while it is checked out between two
 * statements (a transaction of the retention, the bulk operations, the
 * schedule ticker; a failover or pg_terminate_backend) must not crash the
 * process: node-postgres reports it as an 'error' event, which pg-pool only
 * listens for while the client is idle in the pool. Found when a
 * terminate-all-backends test crashed its whole jest process with "Unhandled
 * error. (Error: Connection terminated unexpectedly)".
 */
describe('a pool connection that dies while checked out', () => {
  const t = withTestApp('dead_pool_conn', { env: { WORKER_ENABLED: 'false' } });

  it('fails the next statement instead of crashing the process, and the pool goes on', async () => {
    const pool = t.app.get<Pool>(PG_POOL);
    const client = await pool.connect();
    const [{ pid }] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
    const crashes: unknown[] = [];
    const onCrash = (error: unknown) => crashes.push(error);
    process.on('uncaughtException', onCrash);
    try {
      expect(await terminateBackends(t.db.name, `pid = ${pid}`)).toBe(1);
      await sleep(300); // the 'error' event arrives while no statement runs
      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release(new Error('backend terminated'));
      expect(crashes).toEqual([]);
      expect((await pool.query<{ ok: number }>('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
    } finally {
      process.off('uncaughtException', onCrash);
    }
  });
});
