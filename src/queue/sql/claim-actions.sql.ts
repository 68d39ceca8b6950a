import { leasedActionColumns, tracedStatement } from './leased-action.sql';

/**
 * The claim: `aq_claim_actions`, src/database/functions/aq_claim_actions.sql
 * (its planner settings and their reasons are there; the reasoning of its
 * per-connection floor: the released 023-claim-frontier.up.sql). Parameters: `$1::text` worker id, `$2::text[]`
 * types this worker runs, `$3::int[]` their handlers' maxAttempts caps (null:
 * none), `$4::int` how many (free slots), `$5::int` lease (ms), `$6::boolean`
 * claim one suspect (quarantined) head instead. Returns LeasedActionRow rows.
 */
export const CLAIM_ACTIONS_SQL = {
  name: 'aq_claim_actions',
  text: `SELECT ${leasedActionColumns('c')}
FROM aq_claim_actions($1::text, $2::text[], $3::int[], $4::int, $5::int, $6::boolean) AS c`,
};

/**
 * The worker's claim: CLAIM_ACTIONS_SQL's heads, then the members of each
 * chunk head behind it (`aq_claim_chunks`, src/database/functions/aq_claim_chunks.sql).
 * Parameters: CLAIM_ACTIONS_SQL's, then `$7::text[]` the types that run in
 * chunks and `$8::int[]` their most actions per chunk. Returns
 * LeasedActionRow rows.
 */
export const CLAIM_CHUNKS_SQL = {
  name: 'aq_claim_chunks',
  text: `SELECT ${leasedActionColumns('c')}
FROM aq_claim_chunks($1::text, $2::text[], $3::int[], $4::int, $5::int, $6::boolean, $7::text[], $8::int[]) AS c`,
};

export const NEXT_DUE_SQL = {
  name: 'aq_next_due_with_suspects',
  text: `SELECT wait_ms, suspect_wait_ms FROM aq_next_due($1::text[])`,
};

/** CLAIM_CHUNKS_SQL also returning each action's `traceparent`, while tracing is enabled (src/tracing/tracing-enabled.ts). */
export const CLAIM_CHUNKS_TRACED_SQL = tracedStatement(CLAIM_CHUNKS_SQL, 'c');
