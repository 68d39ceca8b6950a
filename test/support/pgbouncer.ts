import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './service-process';
import { trackRunning } from './running';
import { TEST_SERVER_URL } from './test-database';
import { waitFor } from './test-app';

/** Debian's PgBouncer binary (`apt-get install pgbouncer`; `.ci/run` installs it). */
export const PGBOUNCER_BIN = '/usr/sbin/pgbouncer';

/** A PgBouncer the test started, in front of the test server (TEST_SERVER_URL's host and port). */
export interface PgBouncer {
  /** Port it listens on (127.0.0.1). */
  port: number;
  /** URL of `database` through the pooler (user postgres). */
  urlFor(database: string): string;
  /** Everything it logged so far. */
  output(): string;
  /** Stops it (SIGINT: immediate shutdown) and removes its folder. */
  stop(): Promise<void>;
}

/**
 * Starts Debian's PgBouncer (transaction pooling unless told) in front of the test
 * server, on a free port, with a config file written in a temporary folder,
 * as the `postgres` user when the test runs as root (PgBouncer refuses to run
 * as root). `auth_type = trust`: the test server trusts local connections too.
 *
 * @param poolMode `pool_mode`: `transaction` (the common production setup) or `session`.
 * @param poolSize server connections per database/user pair (`default_pool_size`).
 * @throws Error when the binary is missing or it does not accept connections within 10 s.
 */
export async function startPgBouncer(poolMode: 'transaction' | 'session' = 'transaction', poolSize = 20): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER_BIN)) throw new Error(`${PGBOUNCER_BIN} is missing: apt-get install pgbouncer (.ci/run installs it)`);
  const port = await freePort();
  // The run's server (127.0.0.1:5432, or the embedded one a run on a fresh machine starts).
  const server = new URL(TEST_SERVER_URL);
  const dir = mkdtempSync(join(tmpdir(), 'aq-pgbouncer-'));
  chmodSync(dir, 0o755);
  const config = join(dir, 'pgbouncer.ini');
  writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n');
  writeFileSync(
    config,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `pool_mode = ${poolMode}`,
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 400',
      'server_reset_query =',
      '',
    ].join('\n'),
  );
  chmodSync(config, 0o644);
  chmodSync(join(dir, 'userlist.txt'), 0o644);
  const asPostgres = userInfo().uid === 0 ? postgresIds() : {};
  const child = spawn(PGBOUNCER_BIN, [config], { ...asPostgres, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  let running = true;
  const exited = new Promise<void>((resolve) => child.on('exit', () => ((running = false), resolve())));
  child.on('error', (error) => ((running = false), (out += `spawn failed: ${error.message}\n`)));
  trackRunning(
    `pgbouncer ${child.pid} on port ${port}`,
    () => running,
    async () => child.kill('SIGKILL'),
  );
  const stop = async () => {
    if (running) child.kill('SIGINT');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(async () => {
      if (!running) throw new Error(`pgbouncer exited: ${out}`);
      return out.includes('process up');
    }, 10_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, urlFor: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`, output: () => out, stop };
}

/** uid/gid of the `postgres` user (PgBouncer will not run as root). */
function postgresIds(): { uid: number; gid: number } {
  const uid = Number(spawnSync('id', ['-u', 'postgres']).stdout.toString().trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres']).stdout.toString().trim());
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error('no postgres user to run pgbouncer as');
  return { uid, gid };
}
