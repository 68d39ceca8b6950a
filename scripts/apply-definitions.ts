import dataSource from '../ormconfig';
import { applyDefinitions } from '../src/database/apply-definitions';
import { DEFAULT_QUEUE_SCHEMA } from '../src/database/queue-schema';

/**
 * `npm run migration:run`'s second step: after the TypeORM CLI applied the
 * numbered migrations, applies the current definitions of the queue's
 * functions and views (src/database/apply-definitions.ts) to the same
 * database and schema (ormconfig.ts decides both, as the service does), under
 * the migration lock, as the service's start-up does after its migrations.
 * Prints the names applied; exits non-zero on an error (a newer release's
 * definitions, migration 048 not applied, a definition's SQL error).
 */
async function main(): Promise<void> {
  const ds = await dataSource;
  await ds.initialize();
  try {
    const schema = (ds.options as { schema?: string }).schema ?? DEFAULT_QUEUE_SCHEMA;
    const applied = await applyDefinitions(ds, schema, { lockHeld: false });
    console.log(applied.length > 0 ? `Applied definitions: ${applied.join(', ')}` : 'Definitions are up to date.');
  } finally {
    await ds.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
