import { Client } from 'pg';
import { databaseUrlOn, dropDatabaseOn, migrateDatabase, withClient } from '../src/testing/server-admin';
import { testSearchPathSql } from '../src/testing/test-database';

/** `withClient(url, fn)`: runs `fn` with a connected client on `url`, ended afterwards. */
export { withClient };

/** Server the benchmark uses (a fresh database is created on it per scenario). */
export const BENCH_SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** URL of database `name` on the benchmark server. */
export function databaseUrl(name: string): string {
  return databaseUrlOn(BENCH_SERVER_URL, name);
}

/** Creates database `name` (dropping any leftover of that name) and applies the migrations. */
export async function createMigratedDatabase(name: string): Promise<string> {
  await dropDatabase(name);
  await withClient(BENCH_SERVER_URL, async (admin) => {
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
    // The benchmark's own statements name the queue's tables unqualified, as the tests do.
    await admin.query(testSearchPathSql(admin.escapeIdentifier(name)));
  });
  const url = databaseUrl(name);
  await migrateDatabase(url, 2);
  return url;
}

/** Drops database `name` if it exists, ending any connection still open to it. */
export function dropDatabase(name: string): Promise<void> {
  return dropDatabaseOn(BENCH_SERVER_URL, name);
}

/** Groups of an enqueue: how many actions and the lock id expression over i = 1..n. */
export interface Workload {
  count: number;
  lockExpr: string;
  /** The action type (default instance.update; instance.sync is the demo's ordered chunk handler, chunks of 50). */
  type?: string;
  /** SQL of the tenant of row `i` (docs/tenants.md); absent: the default tenant. */
  tenantExpr?: string;
}

/** Enqueues a workload with one SQL `INSERT … SELECT` (ids in i order), demo payload `durationMs` 0. */
export async function enqueueSql(c: Client, w: Workload, type = w.type ?? 'instance.update'): Promise<void> {
  await c.query(
    `INSERT INTO actions (lock_id, type, payload, tenant)
     SELECT ${w.lockExpr}, $1, '{"durationMs": 0}'::jsonb, ${w.tenantExpr ?? `'default'`} FROM generate_series(1, $2::int) AS i ORDER BY i`,
    [type, w.count],
  );
}
