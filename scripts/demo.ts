/**
 * `npm run demo`: runs the service on a real PostgreSQL, feeds it the four
 * sample actions of the problem statement plus a lifecycle workload, and
 * checks the recorded trace.
 *
 * Database: with DATABASE_URL the demo uses that database as is and looks only
 * at the actions it enqueued itself. Without it, it starts (or joins) the
 * embedded PostgreSQL and creates a fresh database `demo_<timestamp>` that it
 * drops at the end, so every run starts empty and never touches the data of
 * `npm start` (database `action_queue`).
 *
 * The service listens on PORT when it is set, else on a free port.
 *
 * Exit code 0 only when the verdict is clean (no order violation, no overlap
 * within a group, nothing lost, nothing executed twice).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { loadSettings } from '../src/config/settings';
import { EmbeddedPostgresHandle, startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { chooseQueueSchema } from '../src/database/queue-schema-choice';
import { ActionQueueClient } from '../src/client';
import { ServiceProcess, startServiceProcess } from '../src/testing';
import { DemoAction, interleavedBatches, lifecycleWorkload } from './demo-workload';
import { groupByLockId, readTrace, renderTimeline, verifyTrace } from './demo-trace';
import { sleep } from '../src/sleep';

const ROOT = join(__dirname, '..', '..');
const SEED_FILE = join(ROOT, 'examples', 'seed-actions.json');
const INSTANCES = 300;
const FIRST_LOCK_ID = 1000;
const BATCH_SIZE = 100;
const RUN_TIMEOUT_MS = 60_000;

/** Logger for the embedded server: only problems reach the console. */
const quietLogger = {
  log: () => undefined,
  warn: (m: unknown) => console.warn(`  [embedded postgres] ${String(m)}`),
  error: (m: unknown) => console.error(`  [embedded postgres] ${String(m)}`),
};

async function main(): Promise<number> {
  const settings = loadSettings(process.env);
  const cleanups: Array<() => Promise<unknown>> = [];
  const cleanup = async () => {
    while (cleanups.length) await cleanups.pop()!().catch((e: Error) => console.error(`cleanup: ${e.message}`));
  };
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));
  try {
    const databaseUrl = await prepareDatabase(settings, cleanups);
    const service = await startServiceProcess({
      env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', DATABASE_URL: databaseUrl, DEMO_HANDLERS: 'true' },
      // PORT pins the service's port (to watch it at /ui meanwhile); else a free one.
      port: process.env.PORT === undefined ? undefined : settings.PORT,
    });
    console.log(`Service: node dist/src/main.js on 127.0.0.1:${service.port} (worker concurrency ${settings.WORKER_CONCURRENCY})`);
    cleanups.push(() => stopService(service));
    const baseUrl = service.url;

    const seed = (JSON.parse(readFileSync(SEED_FILE, 'utf8')) as { actions: DemoAction[] }).actions;
    const groups = lifecycleWorkload(INSTANCES, FIRST_LOCK_ID);
    const batches = interleavedBatches(groups, BATCH_SIZE);
    const expected = seed.length + groups.reduce((n, g) => n + g.length, 0);
    console.log(
      `Enqueueing ${seed.length} sample actions (groups 26 and 8) and ${expected - seed.length} lifecycle actions of ${INSTANCES} instances in ${batches.length} interleaved batches`,
    );

    // Enqueued through the package's client, as a producer in another service would.
    const queue = new ActionQueueClient({ baseUrl, apiKey: process.env.API_KEY });
    const ids: string[] = [];
    for (const batch of [seed, ...batches]) ids.push(...(await queue.enqueueBatch(batch)).map((a) => a.id));

    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    cleanups.push(() => client.end());
    // The trace's names unqualified, in the schema the service chose as it started (action_queue on a fresh database).
    const { schema } = await chooseQueueSchema(settings.DATABASE_SCHEMA, async (sql, params) => (await client.query(sql, params)).rows);
    await client.query(`SELECT set_config('search_path', quote_ident($1), false)`, [schema]);
    await waitUntilFinished(client, ids);

    const trace = await readTrace(client, ids);
    const verdict = await verifyTrace(client, trace, ids);
    const byGroup = groupByLockId(trace);
    const pick = (lockIds: string[]) => lockIds.filter((l) => byGroup.has(l)).map((l) => [l, byGroup.get(l)!] as [string, typeof trace]);

    console.log('\nSample groups 26 and 8 (enqueued interleaved: 26, 8, 26, 8):');
    renderTimeline(pick(['26', '8'])).forEach((l) => console.log(l));
    console.log('\nA few generated groups:');
    renderTimeline(pick(['1000', '1001', '1002', String(FIRST_LOCK_ID + INSTANCES - 1)])).forEach((l) => console.log(l));

    console.log('\nSummary');
    console.log(`  actions          ${verdict.actions} (expected ${expected})`);
    console.log(`  groups           ${verdict.groups}`);
    console.log(`  wall time        ${(verdict.wallMs / 1000).toFixed(2)} s (first enqueue to last finish, database clock)`);
    console.log(`  max parallelism  ${verdict.maxParallelism} actions running at once`);
    const line =
      `order violations ${verdict.orderViolations}, overlaps within a group ${verdict.overlaps}, ` +
      `lost ${verdict.lost}, repeated executions ${verdict.repeated}`;
    console.log(`\nVERDICT: ${verdict.clean ? 'CLEAN' : 'FAILED'}: ${line}`);
    return verdict.clean ? 0 : 1;
  } finally {
    await cleanup();
  }
}

/** DATABASE_URL as is, or a fresh `demo_<timestamp>` database on the embedded server (dropped by a cleanup). */
async function prepareDatabase(settings: ReturnType<typeof loadSettings>, cleanups: Array<() => Promise<unknown>>): Promise<string> {
  if (settings.DATABASE_URL) {
    console.log('Database: DATABASE_URL (only the actions of this run are checked)');
    return settings.DATABASE_URL;
  }
  const embedded: EmbeddedPostgresHandle = await startEmbeddedPostgres(settings, quietLogger);
  cleanups.push(() => embedded.stop());
  const name = `demo_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}`;
  const admin = new Client({ connectionString: embedded.adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const c = new Client({ connectionString: embedded.adminUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => c.end());
  });
  const url = new URL(embedded.url);
  url.pathname = `/${name}`;
  console.log(
    `Database: embedded PostgreSQL 127.0.0.1:${settings.EMBEDDED_PG_PORT} (data ${settings.EMBEDDED_PG_DIR}), fresh database ${name}, dropped at the end`,
  );
  return url.toString();
}

async function stopService(service: ServiceProcess): Promise<void> {
  const code = await Promise.race([service.stop(), new Promise((r) => setTimeout(() => r('timeout'), 20_000))]);
  if (code === 'timeout') service.child.kill('SIGKILL');
  if (code !== 0) console.error(`service exited with ${String(code)}:\n${service.output()}`);
}

/** Polls until every id is in a terminal state, or RUN_TIMEOUT_MS passes (then the verdict reports the rest as lost). */
async function waitUntilFinished(client: Client, ids: string[]): Promise<void> {
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  let last = '';
  for (;;) {
    const { rows } = await client.query<{ open: number; done: number }>(
      `SELECT count(*) FILTER (WHERE status IN ('pending', 'running'))::int AS open,
              count(*) FILTER (WHERE status = 'done')::int AS done
         FROM actions WHERE id = ANY($1::bigint[])`,
      [ids],
    );
    const { open, done } = rows[0];
    const progress = `  ${done}/${ids.length} done`;
    if (progress !== last && process.stdout.isTTY) process.stdout.write(`\r${progress}`);
    last = progress;
    if (open === 0) break;
    if (Date.now() > deadline) {
      console.log(`\n  gave up waiting after ${RUN_TIMEOUT_MS / 1000} s with ${open} actions unfinished`);
      break;
    }
    await sleep(200);
  }
  if (process.stdout.isTTY) process.stdout.write('\n');
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`demo failed: ${error.stack ?? error.message}`);
    process.exit(1);
  },
);
