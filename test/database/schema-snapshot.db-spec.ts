import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dumpSchema, withTestDatabase } from '../support';

/** The committed dump of the migrated schema; `npm run schema:snapshot` rewrites it. */
const SNAPSHOT = join(__dirname, 'schema.snapshot.sql');

/**
 * The schema as the migrations leave it, compared with the committed
 * snapshot: a change to a table, an index, a function or a trigger must show
 * in review as a diff of test/database/schema.snapshot.sql.
 *
 * The one snapshot holds on PostgreSQL 15 (the machine's cluster, CI) and 18
 * (the embedded server `npm test` falls back to): the dump leaves out 18's
 * NOT NULL constraint rows (each column already says NOT NULL) and prints a
 * view's query as both versions deparse it once reparsed as a SQL function
 * body (15 qualifies a one-relation view's columns, 16+ does not); see
 * test/support/schema-dump.ts. Neither drops anything the schema says.
 */
describe('schema snapshot', () => {
  const db = withTestDatabase('schema_snapshot');

  it('matches the committed snapshot (run `npm run schema:snapshot` after changing a migration, and review the diff)', async () => {
    const client = await db.connect();
    try {
      const dump = await dumpSchema(client);
      if (process.env.UPDATE_SCHEMA_SNAPSHOT === '1') writeFileSync(SNAPSHOT, dump);
      expect(dump).toBe(readFileSync(SNAPSHOT, 'utf8'));
    } finally {
      await client.end();
    }
  });
});
