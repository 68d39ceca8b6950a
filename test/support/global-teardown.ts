import { CREATED_TEMPLATE, RESOLVED_SERVER } from './global-setup';
import type { TestServer } from './test-server';

/**
 * Jest globalTeardown of the database and process projects: drops the
 * template database this run made, then stops the embedded server the run
 * started, if it started one (once; the second project's call finds nothing left).
 */
export default async function globalTeardown(): Promise<void> {
  const run = globalThis as { [CREATED_TEMPLATE]?: string; [RESOLVED_SERVER]?: TestServer };
  const template = run[CREATED_TEMPLATE];
  const server = run[RESOLVED_SERVER];
  delete run[CREATED_TEMPLATE];
  delete run[RESOLVED_SERVER];
  try {
    if (template) {
      const { dropDatabase, TEMPLATE_DATABASE_ENV } = await import('./test-database');
      delete process.env[TEMPLATE_DATABASE_ENV];
      await dropDatabase(template);
    }
  } finally {
    await server?.stop();
  }
}
