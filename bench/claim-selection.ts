import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFINITIONS_DIR } from '../src/database/apply-definitions';

/**
 * The claim's row selection, read from between the `<claim>` markers of the
 * claim's one current definition, src/database/functions/aq_claim_actions.sql
 * (what the service applies), with the function's variables written as
 * parameters (see {@link claimParameters}): for EXPLAIN in the benchmark and
 * in test/database/claim-plan.db-spec.ts (through test/support). The service
 * never runs it, so it lives here, not in src. It locks rows (FOR UPDATE):
 * run it in a transaction that is rolled back.
 *
 * @returns the SELECT, with two parameters.
 * @throws Error when the definition has no `<claim>` section.
 */
export function claimSelectionSql(): string {
  const file = join(DEFINITIONS_DIR, 'aq_claim_actions.sql');
  const section = /-- <claim>\n([\s\S]*?)-- <\/claim>/.exec(readFileSync(file, 'utf8'));
  if (!section) throw new Error(`${file} has no <claim> section`);
  return claimParameters(section[1]);
}

/**
 * The claim's SQL with its variables written as the parameters of
 * {@link claimSelectionSql}: the types (`p_types`, or `v_types`: those left
 * after flow control) as `$1::text[]`, the limit `p_limit` as `$2::int`, and
 * the connection's floor `v_floor` as `'-infinity'` (a sweep: the walk from
 * the start of the index).
 */
export function claimParameters(sql: string): string {
  return sql
    .replace(/\b[pv]_types\b/g, '$1::text[]')
    .replace(/\bp_limit\b/g, '$2::int')
    .replace(/\bv_floor\b/g, "'-infinity'::timestamptz");
}
