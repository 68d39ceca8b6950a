import { LeasedActionRow, leasedActionColumns, tracedStatement } from './leased-action.sql';

/**
 * Ends a batch of attempts and takes the next work in the same commit:
 * `aq_finish_attempts` (src/database/functions/aq_finish_attempts.sql;
 * first written, with its reasoning, in 007-worker-finish.up.sql). Parameters, arrays with one element per attempt:
 * `$1::text` worker id, `$2::bigint[]` action ids, `$3::int[]` attempt
 * numbers, `$4::text[]` next status, `$5::jsonb[]` results, `$6::text[]`
 * errors, `$7::text[]` stacks, `$8::int[]` delays before the next attempt
 * (ms), `$9::text[]` trace outcomes, `$10::int[]` charges (0 or 1); then
 * `$11::text[]` types to take (empty: none), `$12::int[]` their caps,
 * `$13::int` lease (ms), `$14::int` how many actions to take in all.
 */
export const FINISH_ATTEMPTS_SQL = {
  name: 'aq_finish_attempts',
  text: `SELECT f.kind, ${leasedActionColumns('(f.leased)')}
FROM aq_finish_attempts($1::text, $2::bigint[], $3::int[], $4::text[], $5::jsonb[], $6::text[], $7::text[],
                        $8::int[], $9::text[], $10::int[], $11::text[], $12::int[], $13::int, $14::int) AS f`,
};

/**
 * The worker's finishing statement: FINISH_ATTEMPTS_SQL's parameters, then
 * `$15::bigint[]` each attempt's chunk (its first action's id, null for an
 * action run alone), `$16::text[]` the types that run in chunks and
 * `$17::int[]` their most actions per chunk (042-ordered-chunks.up.sql).
 */
export const FINISH_CHUNKS_SQL = {
  name: 'aq_finish_attempts_in_chunks',
  text: `SELECT f.kind, ${leasedActionColumns('(f.leased)')}
FROM aq_finish_attempts($1::text, $2::bigint[], $3::int[], $4::text[], $5::jsonb[], $6::text[], $7::text[],
                        $8::int[], $9::text[], $10::int[], $11::text[], $12::int[], $13::int, $14::int,
                        $15::bigint[], $16::text[], $17::int[]) AS f`,
};

export type FinishAttemptsRow = { kind: 'finished' | 'deferred'; id: string; attempts: number } | ({ kind: 'claimed' } & LeasedActionRow);

/** FINISH_CHUNKS_SQL also returning each taken action's `traceparent`, while tracing is enabled (src/tracing/tracing-enabled.ts). */
export const FINISH_CHUNKS_TRACED_SQL = tracedStatement(FINISH_CHUNKS_SQL, '(f.leased)');
