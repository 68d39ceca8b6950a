import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Builds the service once (`npm run build`: tsc → dist/, SQL migrations
 * copied) so tests can start it as real separate processes
 * (`node dist/src/main.js`).
 */
export default function globalSetup(): void {
  const root = join(__dirname, '..', '..');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
}
