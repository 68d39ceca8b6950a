import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../src/database/data-source-options';

/** Server the benchmark uses (a fresh database is created on it per scenario). */
export const BENCH_SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** URL of database `name` on the benchmark server. */
export function databaseUrl(name: string): string {
  const url = new URL(BENCH_SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates database `name` (dropping any leftover of that name) and applies the migrations. */
export async function createMigratedDatabase(name: string): Promise<string> {
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  const url = databaseUrl(name);
  const ds = new DataSource(buildDataSourceOptions(url, 2));
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  await ds.destroy();
  return url;
}

/** Drops database `name`. */
export async function dropDatabase(name: string): Promise<void> {
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

async function admin(sql: string): Promise<void> {
  const c = new Client({ connectionString: BENCH_SERVER_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Runs `fn` with a connected client on `url`. */
export async function withClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Groups of an enqueue: how many actions and the lock id expression over i = 1..n. */
export interface Workload {
  count: number;
  lockExpr: string;
}

/** Enqueues a workload with one SQL `INSERT … SELECT` (ids in i order), demo payload `durationMs` 0. */
export async function enqueueSql(c: Client, w: Workload, type = 'instance.update'): Promise<void> {
  await c.query(
    `INSERT INTO actions (lock_id, type, payload)
     SELECT ${w.lockExpr}, $1, '{"durationMs": 0}'::jsonb FROM generate_series(1, $2::int) AS i ORDER BY i`,
    [type, w.count],
  );
}
