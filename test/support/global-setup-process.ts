import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import createTemplateDatabaseOnce, { resolveTestServerOnce } from './global-setup';

/**
 * Jest globalSetup of the process project: resolves the run's PostgreSQL
 * (global-setup.ts), builds the service once
 * (`npm run build`: tsc → dist/, SQL migrations copied, the test fixture
 * service included; skipped when dist/ is the build of the current sources,
 * scripts/build-if-stale.mjs) so tests can start it as real separate processes
 * (`node dist/src/main.js`), then makes the run's template database as the
 * database project does.
 */
export default async function globalSetup(): Promise<void> {
  const root = join(__dirname, '..', '..');
  // First: the run's first line says which PostgreSQL it uses.
  await resolveTestServerOnce();
  execFileSync(process.execPath, [join(root, 'scripts', 'build-if-stale.mjs')], { cwd: root, stdio: 'inherit' });
  await createTemplateDatabaseOnce();
}
