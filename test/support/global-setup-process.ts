import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Compiles the service once (tsc → dist/) so tests can start it as real
 * separate processes (`node dist/src/main.js`).
 */
export default function globalSetup(): void {
  const root = join(__dirname, '..', '..');
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], {
    cwd: root,
    stdio: 'inherit',
  });
}
