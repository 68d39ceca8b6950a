import { Client } from 'pg';
import { fillHistory } from '../../bench/admin-reads';
import { CLAIM_ACTIONS_SQL } from '../../src/queue/sql/claim-actions.sql';
import { withTestDatabase } from '../support';

const TYPE = 'instance.update';
const BATCH = 32;

/** Shared buffers of one claim of BATCH (EXPLAIN ANALYZE BUFFERS, rolled back). */
async function claimBuffers(c: Client): Promise<number> {
  await c.query('BEGIN');
  try {
    const { rows } = await c.query<{ 'QUERY PLAN': { Plan: { 'Shared Hit Blocks'?: number; 'Shared Read Blocks'?: number } }[] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${CLAIM_ACTIONS_SQL.text}`,
      ['w', [TYPE], [null], BATCH, 60_000, false],
    );
    const plan = rows[0]['QUERY PLAN'][0].Plan;
    return (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
  } finally {
    await c.query('ROLLBACK');
  }
}

/**
 * The claim's plan is made at a connection's first call, from the statistics
 * of that moment (migration 023, point 4). Made when they counted no pending
 * row (a long history of finished actions, analyzed between bursts), it must
 * still walk the claimable index in order, not scan and sort every pending
 * row: its cost does not grow with the backlog behind (migration 041). Seen
 * failing without 041: 389 buffers with 32 pending, 2 428 with 2 000.
 */
describe('the claim planned on statistics that counted no pending row', () => {
  const db = withTestDatabase('claim_stale_stats');

  it('costs the same with 2 000 pending actions behind as with 32', async () => {
    const c = await db.connect();
    await fillHistory(c, 500_000);
    await c.query('VACUUM ANALYZE actions');
    const worker = await db.connect();
    await worker.query(`INSERT INTO actions (type) SELECT $1 FROM generate_series(1, ${BATCH})`, [TYPE]);
    await claimBuffers(worker); // plans the claim on those statistics
    const few = await claimBuffers(worker);
    await worker.query(`INSERT INTO actions (type) SELECT $1 FROM generate_series(1, 2000 - ${BATCH})`, [TYPE]);
    const many = await claimBuffers(worker);
    expect({ few, many: many < few * 1.5 + 20 ? 'flat' : many }).toEqual({ few, many: 'flat' });
  }, 60_000);
});
