import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQL_MIGRATIONS_DIR } from '../src/database/migrations/sql-file-migration';

/**
 * The claim's row selection, read from between the `<claim>` markers of
 * src/database/sql/006-worker-claim.up.sql (its one home), with the
 * function's parameters written `$1::text[]` (p_types) and `$2::int`
 * (p_limit): for EXPLAIN in the benchmark and in
 * test/database/claim-plan.db-spec.ts (through test/support). The service
 * never runs it, so it lives here, not in src. It locks rows (FOR UPDATE):
 * run it in a transaction that is rolled back.
 *
 * @returns the SELECT, with two parameters.
 * @throws Error when the migration has no `<claim>` section.
 */
export function claimSelectionSql(): string {
  const text = readFileSync(join(SQL_MIGRATIONS_DIR, '006-worker-claim.up.sql'), 'utf8');
  const section = /-- <claim>\n([\s\S]*?)-- <\/claim>/.exec(text);
  if (!section) throw new Error('006-worker-claim.up.sql has no <claim> section');
  return section[1].replace(/\bp_types\b/g, '$1::text[]').replace(/\bp_limit\b/g, '$2::int');
}
