import { Client, ClientConfig } from 'pg';
import { sleep } from '../../src/sleep';
import { TEST_SERVER_URL } from './test-database';

// The one sleep (src/sleep.ts, shared with the fixtures and the demo): only where time itself is the point.
export { sleep };

/**
 * A connected client on `url`; call `end()` when done.
 * @param config more of the client's settings, e.g. `{ application_name: 'aq-victim' }`.
 */
export async function connect(url: string, config: Omit<ClientConfig, 'connectionString'> = {}): Promise<Client> {
  const c = new Client({ ...config, connectionString: url });
  await c.connect();
  return c;
}

/**
 * Ends every connection to database `dbName` except the caller's own (an
 * outage as the service sees it). Connects to the server's maintenance
 * database, so it never touches another test file's database.
 * @returns how many backends were terminated.
 */
export async function terminateBackends(dbName: string, filter = `true`): Promise<number> {
  const c = await connect(TEST_SERVER_URL);
  try {
    const { rows } = await c.query<{ ok: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND (${filter})`,
      [dbName],
    );
    return rows.filter((r) => r.ok).length;
  } finally {
    await c.end();
  }
}

/**
 * Waits until at least `count` backends of database `dbName` wait on a
 * heavyweight lock (`pg_stat_activity.wait_event_type = 'Lock'`): the
 * condition a race test needs before it lets the lock holder go, instead of a
 * sleep that a loaded machine turns into no race at all.
 *
 * @param pids only these backends (e.g. `[await backendPid(client)]`); default: any backend of the database.
 * @param timeoutMs how long to wait (ms) before throwing.
 */
export async function waitForLockWaiters(dbName: string, count = 1, pids?: number[], timeoutMs = 10_000): Promise<void> {
  const c = await connect(TEST_SERVER_URL);
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND ($2::int[] IS NULL OR pid = ANY($2::int[]))`,
        [dbName, pids ?? null],
      );
      if (rows[0].n >= count) return;
      if (Date.now() > deadline) throw new Error(`waitForLockWaiters: ${rows[0].n} of ${count} backends of ${dbName} waiting on a lock after ${timeoutMs} ms`);
      await sleep(10);
    }
  } finally {
    await c.end();
  }
}

/** The server process id of a connected client's backend (for `waitForLockWaiters`, `pg_terminate_backend`). */
export async function backendPid(client: Client): Promise<number> {
  const { rows } = await client.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`);
  return rows[0].pid;
}
