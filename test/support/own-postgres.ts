import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../src/testing/service-process';
import { connect } from './failure-helpers';

const run = promisify(execFile);

/** The PostgreSQL server binaries of the host (Debian's layout; PG_BIN overrides). */
function pgBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  for (const version of ['17', '16', '15', '14']) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  throw new Error('no PostgreSQL server binaries found under /usr/lib/postgresql/*/bin (set PG_BIN)');
}

/** A PostgreSQL cluster of a test's own, on a port of its own: one the test may stop and start. */
export interface OwnPostgres {
  port: number;
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
 */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = pgBin();
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
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c max_connections=100`;
  const start = async () => void (await as('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']));
  const stop = async (mode = 'fast') => void (await as('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']));
  await start();
  const url = (name = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${name}`;
  const admin = await connect(url());
  try {
    await admin.query('CREATE DATABASE aq');
  } finally {
    await admin.end();
  }
  let destroyed = false;
  return {
    port,
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
