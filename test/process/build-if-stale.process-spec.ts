// @run-alone (test/support/run-alone.ts): it rebuilds dist/, which the other process specs run.
import { execFile } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'build-if-stale.mjs');
const STAMP = join(ROOT, 'dist', '.build-inputs');
const MAIN = join(ROOT, 'dist', 'src', 'main.js');

// The project's globalSetup has just built dist/ (or found it current), so the stamp matches the sources.
describe('npm start builds dist/ only when its sources changed (scripts/build-if-stale.mjs)', () => {
  it("npm start's build step does not rebuild a dist/ that is the build of the current sources", async () => {
    const before = statSync(MAIN).mtimeMs;
    const started = Date.now();
    const { stderr } = await run('npm', ['run', '--silent', 'prestart'], { cwd: ROOT, timeout: 300_000 });
    expect(stderr).toContain('dist/ is up to date with its sources: not rebuilt');
    expect(statSync(MAIN).mtimeMs).toBe(before);
    // Hashing the sources, not compiling them: a build takes 30 s and more here.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('rebuilds when the recorded sources differ (an edit since the last build), and records the new ones', async () => {
    const recorded = readFileSync(STAMP, 'utf8');
    writeFileSync(STAMP, 'an older build\n');
    const before = statSync(MAIN).mtimeMs;
    const { stderr } = await run(process.execPath, [SCRIPT], { cwd: ROOT, timeout: 300_000 });
    expect(stderr).toContain('Sources changed since the last build: building dist/');
    expect(statSync(MAIN).mtimeMs).toBeGreaterThan(before);
    expect(readFileSync(STAMP, 'utf8')).toBe(recorded);
  }, 320_000);
});
