import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort, withTestDatabase } from '../support';

const ROOT = join(__dirname, '..', '..');

describe('npm run demo', () => {
  const db = withTestDatabase('demo', { migrated: false });

  it('runs its service on PORT when PORT is set, and ends with a clean verdict', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'scripts', 'demo.js')], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), DATABASE_URL: db.url, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining(`on 127.0.0.1:${port} `) });
  }, 180_000);
});
