/**
 * The test support entry: everything a database or process spec needs, from
 * one import (`import { withTestApp, waitFor } from '../support'`).
 * See test/README.md for the conventions.
 */
import type { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import type { AppModuleOptions } from '../../src/service/app.module';
import type { ServiceSettings } from '../../src/config/settings';
import { assertHooksInstalled, atEndOfFile } from './running';
import { launchTestApp } from './test-app';
import { TestDatabase, testDatabaseFor, TestDatabaseOptions } from './test-database';

export { backendPid, connect, sleep, terminateBackends, waitForLockWaiters } from './failure-helpers';
export { FIXTURE_SERVICE, freePort, runServiceToExit, SERVICE_MAIN, startFixtureService, startServiceProcess } from './service-process';
export { startBlackholeProxy } from './blackhole-proxy';
export { CapturingLogger } from './capturing-logger';
export type { BlackholeProxy } from './blackhole-proxy';
// The oracle and the waits that users get too (ordered-action-queue/testing), for the specs from here like every other helper.
export { checkTrace, formatTraceReport, peakRunningByWorker, VALID_LEASE_OUTCOMES, waitForActions } from '../../src/testing';
export type { TraceReport } from '../../src/testing';
export { executionOverlaps, executionsPastDeadline, newExecutionLogPath, pairExecutions, readExecutions } from './execution-log';
export type { Execution, ExecutionDeadline, ExecutionOverlap, LateExecution } from './execution-log';
// The claim's row selection for EXPLAIN, shared with the benchmark (the service never runs it).
export { claimParameters, claimSelectionSql } from '../../bench/claim-selection';
export { insertAction } from './insert-action';
export { errorLogLines, PINO_ERROR_LEVEL } from './log-lines';
export type { ErrorLogLine } from './log-lines';
export { metricSample } from './metrics-text';
export { startOwnPostgres } from './own-postgres';
export { findPostgresBinaries } from './postgres-binaries';
export { migrateDatabase } from '../../src/testing/server-admin';
export { startPgBouncer } from './pgbouncer';
export type { PgBouncer } from './pgbouncer';
export { dumpSchema } from './schema-dump';
export type { OwnPostgres } from './own-postgres';
export type { PostgresBinaries, PostgresBinariesOptions } from './postgres-binaries';
export { supervise } from './supervisor';
export type { Supervisor } from './supervisor';
export type { ServiceProcess, ServiceProcessOptions, TimedLine } from './service-process';
export { launchTestApp, startTestApp, waitFor } from './test-app';
export { citusInstalled, startCitusCluster } from './citus-cluster';
export type { CitusCluster, CitusNode } from './citus-cluster';
export type { TestApp } from './test-app';
export { cloneTestDatabase, createEmptyTestDatabase, TEST_SERVER_URL } from './test-database';
export type { TestDatabase, TestDatabaseOptions } from './test-database';

/** The database of a describe block, from `withTestDatabase`; read it in tests and hooks, not while jest collects them. */
export interface TestDatabaseHandle {
  /** Database name (for `terminateBackends`, `pg_stat_activity` filters). */
  readonly name: string;
  /** Connection URL, for `startTestApp`, `startServiceProcess` or your own client. */
  readonly url: string;
  /** A new connected client on the database; ended by the helper after the describe block. */
  connect(): Promise<Client>;
}

/** Options of `withTestApp`: the database's, plus how the app starts. */
export interface TestAppOptions extends TestDatabaseOptions {
  /** ServiceSettings on top of the quiet test defaults (`LOG_LEVEL=silent`, `WORKER_POLL_INTERVAL_MS=200`). */
  env?: Record<string, string>;
  /** Extra modules, e.g. handler modules of the test. */
  imports?: AppModuleOptions['imports'];
}

/** The app of a describe block, from `withTestApp`; read it in tests and hooks, not while jest collects them. */
export interface TestAppHandle {
  readonly db: TestDatabaseHandle;
  readonly app: INestApplication;
  /** Base URL of the app's HTTP server, `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly settings: ServiceSettings;
  /** A connected client on the database, ended after the describe block. */
  readonly pg: Client;
}

/** `value`, or a clear error when a handle is read before its beforeAll ran (or after it failed). */
function ready<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not ready: read it inside a test or hook, after the beforeAll of its helper (did that beforeAll fail?)`);
  return value;
}

/**
 * Gives the enclosing describe block its own database: registers a beforeAll
 * that creates it (a clone of the run's migrated template; `{ migrated: false }`
 * for an empty one), an afterAll that ends the clients of `connect()`, and a
 * drop at the end of the file, after every afterAll of the file (so the
 * file's own hooks may still stop what runs on it). Call it in a describe
 * block of a `*.db-spec.ts` or `*.process-spec.ts` file.
 *
 * @param label part of the database name (`aq_test_<label>_<random>`), to tell whose it is.
 * @example
 * describe('shutdown', () => {
 *   const db = withTestDatabase('shutdown');
 *
 *   it('exits 0 on SIGTERM', async () => {
 *     const svc = await startServiceProcess(db.url);
 *     const c = await db.connect();
 *     …
 *     expect(await svc.stop()).toBe(0);
 *   });
 * });
 */
export function withTestDatabase(label: string, options: TestDatabaseOptions = {}): TestDatabaseHandle {
  assertHooksInstalled('withTestDatabase');
  let db: TestDatabase | undefined;
  const clients: Client[] = [];
  const endClients = () => Promise.all(clients.splice(0).map((c) => c.end().catch(() => undefined)));
  beforeAll(async () => {
    db = await testDatabaseFor(label, options);
  });
  afterAll(endClients);
  atEndOfFile(async () => {
    await endClients();
    await db?.drop();
  });
  const what = `withTestDatabase('${label}')`;
  return {
    get name() {
      return ready(db, what).name;
    },
    get url() {
      return ready(db, what).url;
    },
    async connect() {
      const client = new Client({ connectionString: ready(db, what).url });
      // An idle client whose connection a test cuts must not crash the file; a query on it still fails.
      client.on('error', () => undefined);
      await client.connect();
      clients.push(client);
      return client;
    },
  };
}

/**
 * Gives the enclosing describe block its own database (as `withTestDatabase`)
 * and the real app started on it, listening on a free port, with a connected
 * `pg` client: the setup most database specs share. Registers the beforeAll
 * that starts them and the afterAll that closes them.
 *
 * @param label part of the database name, to tell whose it is.
 * @param options settings (`env`), extra modules (`imports`) and `migrated`.
 * @example
 * describe('retention', () => {
 *   const t = withTestApp('retention', { env: { WORKER_ENABLED: 'false' } });
 *
 *   it('purges old actions', async () => {
 *     await t.pg.query(`INSERT INTO actions (type) VALUES ('instance.create')`);
 *     await request(t.url).get('/stats').expect(200);
 *     await t.app.get(RetentionService).purge(7);
 *   });
 * });
 */
export function withTestApp(label: string, options: TestAppOptions = {}): TestAppHandle {
  const db = withTestDatabase(label, options);
  let started: { app: INestApplication; url: string; settings: ServiceSettings; closed: boolean } | undefined;
  let pg: Client | undefined;
  const close = async () => {
    if (!started || started.closed) return;
    started.closed = true;
    await started.app.close();
  };
  beforeAll(async () => {
    started = { ...(await launchTestApp(db.url, options.env, options.imports)), closed: false };
    pg = await db.connect();
  });
  afterAll(close);
  atEndOfFile(close);
  const what = `withTestApp('${label}')`;
  return {
    db,
    get app() {
      return ready(started, what).app;
    },
    get url() {
      return ready(started, what).url;
    },
    get settings() {
      return ready(started, what).settings;
    },
    get pg() {
      return ready(pg, what);
    },
  };
}
