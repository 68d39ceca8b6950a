import { CREATED_TEMPLATE } from './global-setup';
import { dropDatabase, TEMPLATE_DATABASE_ENV } from './test-database';

/** Jest globalTeardown of the database and process projects: drops the template database this run made (once). */
export default async function globalTeardown(): Promise<void> {
  const run = globalThis as { [CREATED_TEMPLATE]?: string };
  const template = run[CREATED_TEMPLATE];
  if (!template) return;
  delete run[CREATED_TEMPLATE];
  delete process.env[TEMPLATE_DATABASE_ENV];
  await dropDatabase(template);
}
