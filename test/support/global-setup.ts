import type { TestServer } from './test-server';

/** Where this jest process keeps the name of the template it made (globalSetup and globalTeardown share the process). */
export const CREATED_TEMPLATE = Symbol.for('ordered-action-queue.test.templateDatabase');
/** Where this jest process keeps the server it resolved (and maybe started) for the run. */
export const RESOLVED_SERVER = Symbol.for('ordered-action-queue.test.server');

type Run = { [CREATED_TEMPLATE]?: string; [RESOLVED_SERVER]?: TestServer };

/**
 * Resolves the run's PostgreSQL once (test-server.ts: TEST_DATABASE_URL, else
 * 127.0.0.1:5432 when it answers, else an embedded server started for the
 * run) and prints which one, as the run's first line. The process project
 * calls it before building, so that line comes first there too.
 */
export async function resolveTestServerOnce(): Promise<TestServer> {
  const run = globalThis as Run;
  if (!run[RESOLVED_SERVER]) {
    const { resolveTestServer } = await import('./test-server');
    run[RESOLVED_SERVER] = await resolveTestServer();
    process.stderr.write(`${run[RESOLVED_SERVER].description}\n`);
  }
  return run[RESOLVED_SERVER];
}

/**
 * Jest globalSetup of the database project: resolves the run's server
 * ({@link resolveTestServerOnce}), then creates this run's migrated template
 * database once, before any test file, and names it in
 * `AQ_TEST_TEMPLATE_DATABASE` for `cloneTestDatabase` to clone. The process
 * project calls it too; the second call finds the template made.
 * `global-teardown.ts` drops it and stops a server the run started.
 */
export default async function createTemplateDatabaseOnce(): Promise<void> {
  const run = globalThis as Run;
  if (run[CREATED_TEMPLATE]) return;
  const server = await resolveTestServerOnce();
  // Loaded only now: test-database.ts reads TEST_DATABASE_URL when it loads, which the resolver may have just set.
  const { createTemplateDatabase, TEMPLATE_DATABASE_ENV } = await import('./test-database');
  try {
    run[CREATED_TEMPLATE] = await createTemplateDatabase();
  } catch (error) {
    // Jest runs no teardown after a failed setup: a server started for the run must not outlive it.
    delete run[RESOLVED_SERVER];
    await server.stop().catch(() => undefined);
    throw error;
  }
  process.env[TEMPLATE_DATABASE_ENV] = run[CREATED_TEMPLATE];
}
