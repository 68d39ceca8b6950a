/**
 * `npm run client:generate`: regenerates the client's types
 * (src/client/generated/openapi.ts) from the live OpenAPI document. Starts
 * the service in-process (worker off) on a throwaway database of the test
 * server (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres),
 * reads `/docs-json`, writes the file and drops the database.
 */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { createApp } from '../src/service/bootstrap';
import { loadSettings } from '../src/config/settings';
import { createTestDatabase } from '../src/testing';
import { CLIENT_TYPES_FILE, renderClientTypes } from './client-types';

const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function main(): Promise<void> {
  const db = await createTestDatabase(SERVER_URL, 'client_types');
  try {
    const settings = loadSettings({ LOG_LEVEL: 'silent', WORKER_ENABLED: 'false', STRAY_ERROR_POLICY: 'off', WATCHDOG_ENABLED: 'false' });
    const app = await createApp({ databaseUrl: db.url, settings });
    await app.listen(0, '127.0.0.1');
    try {
      const { port } = app.getHttpServer().address() as { port: number };
      const document: unknown = await (await fetch(`http://127.0.0.1:${port}/docs-json`)).json();
      writeFileSync(CLIENT_TYPES_FILE, await renderClientTypes(document));
      console.log(`Wrote ${relative(process.cwd(), CLIENT_TYPES_FILE)}`);
    } finally {
      await app.close();
    }
  } finally {
    await db.drop();
  }
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exitCode = 1;
});
