import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

type PackedFile = { path: string; mode: number };
type PackReport = { name: string; version: string; files: PackedFile[] };

/**
 * Runs npm in the repository with install scripts off (the jest globalSetup has
 * just built dist/; prepack would build it again) and returns its stdout.
 * Throws with npm's output when it exits non-zero.
 */
function npm(args: string[]): string {
  return execFileSync('npm', [...args, '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * The package as the registry would get it: `npm pack --dry-run` lists the
 * tarball's files, `npm publish --dry-run` runs the registry checks npm makes
 * before uploading (without logging in or sending anything).
 */
describe('the published package', () => {
  let packed: PackReport;
  let paths: Set<string>;

  beforeAll(() => {
    [packed] = JSON.parse(npm(['pack', '--dry-run', '--json'])) as PackReport[];
    paths = new Set(packed.files.map((f) => f.path));
  });

  it('is publishable: not private, with a licence file, engines and a name users install by', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.private).toBeUndefined();
    expect(manifest.license).toBe('MIT');
    expect(manifest.engines).toEqual({ node: expect.any(String) });
    expect(paths).toContain('LICENSE');
    expect(paths).toContain('README.md');
    expect(paths).toContain('CHANGELOG.md');
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`npm install ${packed.name}`);
  });

  it('ships the built entry points, every migration and definition, and the dashboard', () => {
    for (const entry of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/main.js', 'dist/src/client/index.js', 'dist/src/testing/index.js']) {
      expect(paths).toContain(entry);
    }
    const migrations = readdirSync(join(ROOT, 'src', 'database', 'sql')).filter((f) => f.endsWith('.sql'));
    expect(migrations.length).toBeGreaterThan(0);
    for (const file of migrations) expect(paths).toContain(`dist/src/database/sql/${file}`);
    // The functions' and views' current definitions, applied after the migrations (apply-definitions.ts).
    const definitions = readdirSync(join(ROOT, 'src', 'database', 'functions')).filter((f) => f.endsWith('.sql'));
    expect(definitions).toContain('aq_finish_attempts.sql');
    for (const file of definitions) expect(paths).toContain(`dist/src/database/functions/${file}`);
    expect([...paths].some((p) => p.startsWith('dist/ui/'))).toBe(true);
  });

  it('ships the command line as its bin: executable, with the line that runs it with node', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
    expect(manifest.bin).toEqual({ 'ordered-action-queue': 'dist/src/cli/main.js' });
    const main = packed.files.find((f) => f.path === 'dist/src/cli/main.js');
    expect(main).toBeDefined();
    expect(main!.mode & 0o111).toBe(0o111);
    expect(readFileSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });

  it('ships nothing users do not need: no sources, tests, specs, benchmarks or local data', () => {
    const unwanted = [...paths].filter(
      (p) =>
        /^(src|test|bench|scripts|ui|examples|etc|\.ci|\.data)\//.test(p) ||
        /\.spec\.(js|d\.ts)$|\.db-spec\.|\.process-spec\./.test(p) ||
        /(^|\/)\.env/.test(p) ||
        /^dist\/(test|bench)\//.test(p),
    );
    expect(unwanted).toEqual([]);
  });

  it('passes npm publish --dry-run', () => {
    // Its JSON report is keyed by the package's name.
    const report = JSON.parse(npm(['publish', '--dry-run', '--json'])) as Record<string, PackReport>;
    expect(report[packed.name]).toMatchObject({ name: packed.name, version: packed.version });
  });
});
