import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQL_MIGRATIONS_DIR } from '../src/database/migrations/sql-file-migration';

/** The migration that holds the claim's current row selection, between its `<claim>` markers (first written in 006-worker-claim.up.sql). */
export const CLAIM_SELECTION_MIGRATION = '023-claim-frontier.up.sql';

/**
 * The claim's row selection, read from between the `<claim>` markers of
 * {@link CLAIM_SELECTION_MIGRATION} (its one home), with the function's
 * parameters written `$1::text[]` (p_types) and `$2::int` (p_limit), and the
 * connection's floor as `'-infinity'` (a sweep: the walk from the start of the
 * index): for EXPLAIN in the benchmark and in
 * test/database/claim-plan.db-spec.ts (through test/support). The service
 * never runs it, so it lives here, not in src. It locks rows (FOR UPDATE):
 * run it in a transaction that is rolled back.
 *
 * @returns the SELECT, with two parameters.
 * @throws Error when the migration has no `<claim>` section.
 */
export function claimSelectionSql(): string {
  const text = readFileSync(join(SQL_MIGRATIONS_DIR, CLAIM_SELECTION_MIGRATION), 'utf8');
  const section = /-- <claim>\n([\s\S]*?)-- <\/claim>/.exec(text);
  if (!section) throw new Error(`${CLAIM_SELECTION_MIGRATION} has no <claim> section`);
  return section[1]
    .replace(/\bp_types\b/g, '$1::text[]')
    .replace(/\bp_limit\b/g, '$2::int')
    .replace(/\bv_floor\b/g, "'-infinity'::timestamptz");
}
