import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../src/testing/service-process';
import { connect, sleep } from './failure-helpers';
import { findPostgresBinaries } from './postgres-binaries';

const run = promisify(execFile);

/**
 * The PostgreSQL major Citus is built for on this machine (/work/shared/citus/build.sh
 * installs it into PostgreSQL 15, the Debian server's).
 */
export const CITUS_PG_MAJOR = 15;

/** One server of a Citus cluster of a test's own. */
export interface CitusNode {
  /** `coordinator`, `worker1`, `worker2`. */
  name: string;
  port: number;
  /** URL of database `name` (default: the cluster's database, `aq`). */
  url(name?: string): string;
  /** The postmaster's pid (from postmaster.pid), or null when it is down. */
  pid(): number | null;
  /** SIGKILLs the postmaster (a crash: no shutdown checkpoint) and waits until its port is free. */
  kill(): Promise<void>;
  /** Starts the server again (crash recovery when it was killed), waiting until it accepts connections. */
  start(): Promise<void>;
}

/** A coordinator and two workers with the citus extension, on free ports, database `aq` everywhere. */
export interface CitusCluster {
  coordinator: CitusNode;
  workers: CitusNode[];
  /** Stops every server (immediate) and deletes the temporary folder. Idempotent. */
  destroy(): Promise<void>;
}

/** Whether the citus extension is installed for the server binaries the cluster would use. */
export function citusInstalled(): boolean {
  const binaries = findPostgresBinaries({ preferMajor: CITUS_PG_MAJOR });
  return existsSync(join(binaries.dir, '..', 'lib', 'citus.so'));
}

/**
 * Starts a Citus cluster of a test's own: `initdb` of a coordinator and two
 * workers under one temporary folder, each with `shared_preload_libraries =
 * 'citus'` on a free port of 127.0.0.1, database `aq` with `CREATE EXTENSION
 * citus` on each, then `citus_set_coordinator_host` and `citus_add_node` for
 * both workers. As root the servers run as the `postgres` OS user (PostgreSQL
 * refuses root). Takes 10-20 s on this machine (three initdb).
 *
 * Schema-based sharding is switched on (`citus.enable_schema_based_sharding`,
 * ALTER SYSTEM on the coordinator), so each schema created afterwards is a
 * distributed schema placed whole on one node: the queue's partitions
 * (docs/scale-out.md).
 *
 * @param options `workers`: how many worker nodes (default 2).
 * @returns the cluster; call `destroy()` at the end (afterAll).
 * @throws Error when Citus is not installed (run /work/shared/citus/build.sh, or `.ci/run` does),
 *   or a server fails to start (its log's tail is in the message).
 */
export async function startCitusCluster(options: { workers?: number } = {}): Promise<CitusCluster> {
  if (!citusInstalled()) throw new Error('citus is not installed for PostgreSQL 15: run ../shared/citus/build.sh (.ci/run does when it is missing)');
  const binaries = findPostgresBinaries({ preferMajor: CITUS_PG_MAJOR });
  const dir = mkdtempSync(join(tmpdir(), 'aq-citus-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout: uid } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(uid.trim()), Number(gid.trim()));
  }
  const as = (file: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(binaries.dir, file), ...args]) : run(join(binaries.dir, file), args);
  const names = ['coordinator', ...Array.from({ length: options.workers ?? 2 }, (_, i) => `worker${i + 1}`)];
  const nodes: CitusNode[] = [];
  const stoppers: (() => Promise<void>)[] = [];
  const cluster: CitusCluster = {
    coordinator: undefined as unknown as CitusNode,
    workers: [],
    destroy: async () => {
      for (const stop of stoppers.splice(0)) await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    for (const name of names) {
      const data = join(dir, name);
      const port = await freePort();
      await as('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
      const serverOptions =
        `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c max_connections=200 ` +
        `-c shared_preload_libraries=citus -c max_prepared_transactions=100`;
      const log = join(dir, `${name}.log`);
      const start = async () => {
        try {
          await as('pg_ctl', ['-D', data, '-o', serverOptions, '-l', log, '-w', '-t', '60', 'start']);
        } catch (error) {
          const tail = existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-15).join('\n') : '';
          throw new Error(`citus node ${name} did not start: ${(error as Error).message}\n${tail}`);
        }
      };
      const pid = (): number | null => {
        const file = join(data, 'postmaster.pid');
        if (!existsSync(file)) return null;
        const value = Number(readFileSync(file, 'utf8').split('\n')[0]);
        return Number.isInteger(value) && value > 0 ? value : null;
      };
      const url = (db = 'aq') => `postgres://postgres@127.0.0.1:${port}/${db}`;
      const node: CitusNode = {
        name,
        port,
        url,
        pid,
        kill: async () => {
          const p = pid();
          if (p === null) return;
          try {
            process.kill(p, 'SIGKILL');
          } catch {
            return;
          }
          // The children go with it once they see the postmaster gone; wait until nothing answers.
          for (let i = 0; i < 200; i++) {
            const up = await connect(url('postgres'))
              .then(async (c) => (await c.end(), true))
              .catch(() => false);
            if (!up) break;
            await sleep(50);
          }
          // A killed postmaster leaves its pid file; children exit within moments of their parent.
          await sleep(300);
        },
        start,
      };
      await start();
      stoppers.unshift(async () => void (await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop'])));
      const admin = await connect(url('postgres'));
      try {
        await admin.query('CREATE DATABASE aq');
      } finally {
        await admin.end();
      }
      const db = await connect(url());
      try {
        await db.query('CREATE EXTENSION citus');
      } finally {
        await db.end();
      }
      nodes.push(node);
    }
    const [coordinator, ...workers] = nodes;
    const c = await connect(coordinator.url());
    try {
      await c.query('SELECT citus_set_coordinator_host($1, $2)', ['127.0.0.1', coordinator.port]);
      for (const worker of workers) await c.query('SELECT citus_add_node($1, $2)', ['127.0.0.1', worker.port]);
      await c.query('ALTER SYSTEM SET citus.enable_schema_based_sharding TO on');
      await c.query('SELECT pg_reload_conf()');
    } finally {
      await c.end();
    }
    cluster.coordinator = coordinator;
    cluster.workers = workers;
    return cluster;
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
}
