import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** Server the tests use; CI has PostgreSQL on 127.0.0.1:5432 with trust auth. */
export const TEST_SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A database created for one test file. */
export interface TestDatabase {
  name: string;
  url: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

function urlFor(name: string): string {
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Creates an empty database with a unique name (`aq_test_<label>_<random>`).
 * The app migrates it when it starts.
 */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `aq_test_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: TEST_SERVER_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: urlFor(name),
    drop: async () => {
      const c = new Client({ connectionString: TEST_SERVER_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
