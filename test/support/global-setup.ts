import { createTemplateDatabase, TEMPLATE_DATABASE_ENV } from './test-database';

/** Where this jest process keeps the name of the template it made (globalSetup and globalTeardown share the process). */
export const CREATED_TEMPLATE = Symbol.for('ordered-action-queue.test.templateDatabase');

/**
 * Jest globalSetup of the database project: creates this run's migrated
 * template database once, before any test file, and names it in
 * `AQ_TEST_TEMPLATE_DATABASE` for `cloneTestDatabase` to clone. The process
 * project calls it too; the second call finds the template made.
 * `global-teardown.ts` drops it.
 */
export default async function createTemplateDatabaseOnce(): Promise<void> {
  const run = globalThis as { [CREATED_TEMPLATE]?: string };
  if (run[CREATED_TEMPLATE]) return;
  run[CREATED_TEMPLATE] = await createTemplateDatabase();
  process.env[TEMPLATE_DATABASE_ENV] = run[CREATED_TEMPLATE];
}
