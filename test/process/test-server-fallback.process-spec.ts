import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../support';

/**
 * `npm test` on a fresh machine, with no TEST_DATABASE_URL and nothing on the
 * default port, starts the embedded PostgreSQL itself, runs on it, and stops
 * it (test/support/test-server.ts). Here a small jest run (one database spec,
 * one that logs in as a role it creates) is started as its own process with
 * TEST_DATABASE_URL unset and AQ_TEST_DEFAULT_PORT pointing at a port where
 * nothing listens, so the machine's cluster is never touched.
 */

const root = join(__dirname, '..', '..');
const JEST = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
/** Variables of this run that the inner run must not inherit: its server, its template and this worker's identity. */
const OUTER_ONLY = ['TEST_DATABASE_URL', 'AQ_TEST_TEMPLATE_DATABASE', 'JEST_WORKER_ID'];

describe('the test server when none is given and none answers', () => {
  it('is an embedded PostgreSQL the run starts, names in its first line, runs the specs on and stops', async () => {
    const nothingThere = await freePort();
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !OUTER_ONLY.includes(name)));
    const child = spawn(process.execPath, [JEST, 'test/database/producer-rights.db-spec.ts', '--runInBand', '--ci'], {
      cwd: root,
      env: { ...env, AQ_TEST_DEFAULT_PORT: String(nothingThere) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));

    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('Tests:       1 passed, 1 total') as unknown });
    const first = output.split('\n')[0];
    const started = /^Tests use an embedded PostgreSQL started for this run on 127\.0\.0\.1:(\d+), data in (\S+) /.exec(first);
    expect(started).not.toBeNull();
    expect(first).toContain(`nothing answers on 127.0.0.1:${nothingThere}`);
    const [, port, dataDir] = started!;

    // Stopped and deleted at the end of the run: no server on its port, no data folder left.
    expect(existsSync(dataDir)).toBe(false);
    const probe = new Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 2_000 });
    await expect(probe.connect()).rejects.toThrow(/ECONNREFUSED/);
    await probe.end().catch(() => undefined);
  }, 100_000);
});
