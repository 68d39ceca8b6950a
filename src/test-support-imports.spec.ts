import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Specs import their helpers through one entry, `test/support/index.ts`
 * (`'../support'`), as test/README.md asks: a helper renamed or merged there
 * is then changed in one place. The specs of the public testing entry itself
 * (`testing-entry`, `examples`) import `src/testing` on purpose: they prove
 * what users get.
 */

const root = join(__dirname, '..');

/** Spec folders and the specs allowed to import `src/testing` directly. */
const SPEC_FOLDERS = ['test/database', 'test/process'];
const PUBLIC_ENTRY_SPECS = new Set(['test/database/testing-entry.db-spec.ts', 'test/process/examples.process-spec.ts']);

/** The module specifiers of a file's static imports and re-exports. */
function importsOf(source: string): string[] {
  return [...source.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'/gm)].map((m) => m[1]);
}

/**
 * Why `specifier` may not be imported by the spec `file`, or null when it may:
 * a file inside test/support (bypasses the entry), or a helper module of
 * src/testing or src/sleep (the entry re-exports them).
 */
export function bypassOf(file: string, specifier: string): string | null {
  if (/^\.\.\/support\/.+/.test(specifier)) return `${file}: ${specifier} (import '../support' instead)`;
  if (/^\.\.\/\.\.\/src\/(?:testing(?:\/.*)?|sleep)$/.test(specifier) && !PUBLIC_ENTRY_SPECS.has(file)) {
    return `${file}: ${specifier} (import it from '../support'; only the public entry's own specs import src/testing)`;
  }
  return null;
}

describe('test helper imports', () => {
  it('every database and process spec takes its helpers from ../support', () => {
    const specs = SPEC_FOLDERS.flatMap((dir) =>
      readdirSync(join(root, dir))
        .filter((f) => /\.(?:db|process)-spec\.ts$/.test(f))
        .map((f) => `${dir}/${f}`),
    );
    expect(specs.length).toBeGreaterThan(10);
    const offences = specs.flatMap((file) =>
      importsOf(readFileSync(join(root, file), 'utf8'))
        .map((s) => bypassOf(file, s))
        .filter((o): o is string => o !== null),
    );
    expect(offences).toEqual([]);
  });

  it('catches a spec that reaches into test/support or src/testing, and lets the public entry specs through', () => {
    expect(bypassOf('test/database/x.db-spec.ts', '../support/test-app')).toMatch(/import '..\/support' instead/);
    expect(bypassOf('test/database/x.db-spec.ts', '../../src/testing/server-admin')).toMatch(/only the public entry/);
    expect(bypassOf('test/database/x.db-spec.ts', '../../src/sleep')).toMatch(/from '..\/support'/);
    expect(bypassOf('test/database/x.db-spec.ts', '../support')).toBeNull();
    expect(bypassOf('test/database/x.db-spec.ts', '../../src/queue/instance/worker-slots')).toBeNull();
    expect(bypassOf('test/database/testing-entry.db-spec.ts', '../../src/testing')).toBeNull();
  });

  it('reads multi-line imports and re-exports', () => {
    expect(importsOf("import {\n  a,\n  b,\n} from '../support/x';\nexport { c } from '../support';\nimport 'reflect-metadata';")).toEqual([
      '../support/x',
      '../support',
    ]);
  });
});
