import { Client } from 'pg';
import { CLAIM_ACTIONS_SQL } from '../src/queue/sql/claim-actions.sql';
import { FINISH_ATTEMPTS_SQL } from '../src/queue/sql/finish-attempts.sql';

/**
 * The worker's two statements measured alone, no service: one claim of
 * PROBE_BATCH actions (aq_claim_actions) and one finish of them
 * (aq_finish_attempts), each under EXPLAIN (ANALYZE, BUFFERS). Shared by
 * bench/mvcc-probe.ts (a held horizon) and bench/long-history.ts (millions
 * of finished actions). Buffers are the figure to compare: unlike times,
 * they do not depend on how busy the machine is.
 */

export const PROBE_TYPE = 'instance.update';
export const PROBE_BATCH = 32;
export const PROBE_LEASE_MS = 60_000;

interface ExplainRoot {
  Plan: { 'Shared Hit Blocks'?: number; 'Shared Read Blocks'?: number };
  'Execution Time': number;
}

/** One statement's cost: shared buffers touched (hit + read) and execution time (ms) from EXPLAIN. */
export interface StatementCost {
  buffers: number;
  ms: number;
}

/**
 * The parameters of aq_finish_attempts that record `rows` (leased by `worker`)
 * as done, then hand off or claim up to `claimLimit` more of PROBE_TYPE (0: none).
 */
export function finishValues(worker: string, rows: { id: string; attempts: number }[], claimLimit = 0): unknown[] {
  return [
    worker,
    rows.map((r) => r.id),
    rows.map((r) => r.attempts),
    rows.map(() => 'done'),
    rows.map(() => '{}'),
    rows.map(() => null),
    rows.map(() => null),
    rows.map(() => 0),
    rows.map(() => 'done'),
    rows.map(() => 0),
    [PROBE_TYPE],
    [null],
    PROBE_LEASE_MS,
    claimLimit,
  ];
}

/** The parameters of aq_claim_actions for `worker`: up to PROBE_BATCH actions of PROBE_TYPE. */
export function claimValues(worker: string): unknown[] {
  return [worker, [PROBE_TYPE], [null], PROBE_BATCH, PROBE_LEASE_MS, false];
}

async function explain(c: Client, sql: string, values: unknown[]): Promise<StatementCost> {
  const { rows } = await c.query<{ 'QUERY PLAN': ExplainRoot[] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, values);
  const root = rows[0]['QUERY PLAN'][0];
  return { buffers: (root.Plan['Shared Hit Blocks'] ?? 0) + (root.Plan['Shared Read Blocks'] ?? 0), ms: root['Execution Time'] };
}

/**
 * Enqueues PROBE_BATCH ungrouped actions, then, in a transaction that is
 * rolled back, claims them and finishes them under EXPLAIN.
 *
 * @returns the claim's and the finish's cost, and how many rows the claim leased.
 */
export async function probeClaimAndFinish(c: Client): Promise<{ claim: StatementCost; finish: StatementCost; claimed: number }> {
  await c.query(`INSERT INTO actions (lock_id, type, payload) SELECT NULL, $1, '{}' FROM generate_series(1, $2::int)`, [PROBE_TYPE, PROBE_BATCH]);
  await c.query('BEGIN');
  try {
    const claim = await explain(c, CLAIM_ACTIONS_SQL.text, claimValues('probe'));
    const { rows } = await c.query<{ id: string; attempts: number }>(
      `SELECT id::text, attempts FROM actions WHERE status = 'running' AND lease_owner = 'probe'`,
    );
    const finish = await explain(c, FINISH_ATTEMPTS_SQL.text, finishValues('probe', rows));
    return { claim, finish, claimed: rows.length };
  } finally {
    await c.query('ROLLBACK');
  }
}
