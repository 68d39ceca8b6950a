import { Client } from 'pg';
import { TEST_SERVER_URL } from './test-database';

/** Sleeps `ms`. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A connected client on `url`; call `end()` when done. */
export async function connect(url: string): Promise<Client> {
  const c = new Client({ connectionString: url });
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
