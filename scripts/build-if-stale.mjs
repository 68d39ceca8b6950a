// Builds dist/ only when its sources changed since the last build (`npm start`,
// `npm run demo`, `npm run bench`, the process tests' setup). A full build
// takes 30-40 s and deletes dist/ first, under any process running from it;
// starting again without a change needs neither.
//
// How: a SHA-256 over the path and content of every build input (below),
// written to dist/.build-inputs by `npm run build` (`--stamp`) once the build
// succeeded. No stamp (fresh clone, failed build) or a different hash: build.
//
// Usage: node scripts/build-if-stale.mjs          build if stale
//        node scripts/build-if-stale.mjs --stamp  record the inputs of the build just made
// Plain JavaScript: it must run before anything is compiled.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const STAMP = join(ROOT, 'dist', '.build-inputs');
/** What `npm run build` reads: tsconfig.build.json's include, the SQL it copies, the dashboard, the build settings. */
const INPUT_DIRS = ['src', 'bench', 'scripts', 'test/fixtures', 'ui'];
const INPUT_FILES = ['ormconfig.ts', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];

/** Every file under `dir`, recursively, skipping node_modules and dist. */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist') return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** Hash of the build inputs' paths and contents, in a stable order. */
function inputsHash() {
  const files = [...INPUT_DIRS.flatMap((dir) => filesUnder(join(ROOT, dir))), ...INPUT_FILES.map((file) => join(ROOT, file))]
    .filter((file) => existsSync(file))
    .map((file) => relative(ROOT, file).split('\\').join('/'))
    .sort();
  const hash = createHash('sha256');
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(ROOT, file)))
      .update('\0');
  return hash.digest('hex');
}

// The build records the hash taken before it started (AQ_BUILD_INPUTS), so an
// edit made while it ran makes the next start build again.
const current = process.argv.includes('--stamp') ? (process.env.AQ_BUILD_INPUTS ?? inputsHash()) : inputsHash();
if (process.argv.includes('--stamp')) {
  writeFileSync(STAMP, `${current}\n`);
} else if (existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === current) {
  console.error('dist/ is up to date with its sources: not rebuilt');
} else {
  console.error(existsSync(STAMP) ? 'Sources changed since the last build: building dist/' : 'No build of these sources yet: building dist/');
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, AQ_BUILD_INPUTS: current } });
  process.exitCode = build.status ?? 1;
}
