import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import createTemplateDatabaseOnce from './global-setup';

/**
 * Jest globalSetup of the process project: compiles the service once (tsc →
 * dist/) so tests can start it as real separate processes
 * (`node dist/src/main.js`), then makes the run's template database as the
 * database project does.
 */
export default async function globalSetup(): Promise<void> {
  const root = join(__dirname, '..', '..');
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], {
    cwd: root,
    stdio: 'inherit',
  });
  await createTemplateDatabaseOnce();
}
