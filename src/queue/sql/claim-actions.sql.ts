import { leasedActionColumns } from './leased-action.sql';

/**
 * The claim: `aq_claim_actions` (src/database/sql/023-claim-frontier.up.sql,
 * where its reasoning is; first written in 006-worker-claim.up.sql). Parameters: `$1::text` worker id, `$2::text[]`
 * types this worker runs, `$3::int[]` their handlers' maxAttempts caps (null:
 * none), `$4::int` how many (free slots), `$5::int` lease (ms), `$6::boolean`
 * claim one suspect (quarantined) head instead, `$7::text[]` the types that
 * run in chunks and `$8::int[]` their most actions per chunk: `aq_claim_chunks`
 * (042-ordered-chunks.up.sql) adds each chunk head's members behind it.
 * Returns LeasedActionRow rows.
 */
export const CLAIM_ACTIONS_SQL = {
  name: 'aq_claim_chunks',
  text: `SELECT ${leasedActionColumns('c')}
FROM aq_claim_chunks($1::text, $2::text[], $3::int[], $4::int, $5::int, $6::boolean, $7::text[], $8::int[]) AS c`,
};

/**
 * How long until the next head of these types becomes due (ms, from the
 * database clock), quarantined or not (`wait_ms`), and until the next suspect
 * (quarantined) head does (`suspect_wait_ms`); null when none is scheduled. A
 * worker that found nothing to claim sets a timer for each, so a `runAt` in
 * the future starts on time whatever the poll interval, and a suspect's
 * through the SuspectRunner (the ordinary claim never takes one). Two index
 * probes (actions_claimable_idx, actions_quarantined_idx). `$1::text[]` types.
 *
 * Flow control (docs/flow-control.md) adds two more times to `wait_ms`: when
 * a timed pause of these types (or of the queue) ends, and when the bucket of
 * a rate-limited type with a due head holds its next token; each a read of a
 * small table, empty unless those controls are used.
 *
 * The statement is `aq_next_due` (src/database/sql/040-generic-idle-probes.up.sql):
 * planned once per connection, since planning it anew looked up the end of
 * actions_claimable_idx, dead entries and all, at every call.
 */
export const NEXT_DUE_SQL = {
  name: 'aq_next_due_with_suspects',
  text: `SELECT wait_ms, suspect_wait_ms FROM aq_next_due($1::text[])`,
};
