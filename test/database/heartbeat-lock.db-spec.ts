import { withTestDatabase } from '../support';
import { CLAIM_ACTIONS_SQL } from '../../src/queue/sql/claim-actions.sql';
import { EXTEND_LEASES_SQL } from '../../src/queue/sql/extend-leases.sql';

/**
 * The heartbeat never waits for a row lock. A worker's finishing statements
 * lock the rows of the attempts they record while the heartbeat runs; a
 * heartbeat that waited for them deadlocked with them under load (the two
 * locked the same rows in different orders). It skips a locked row, leaves
 * its lease as it is, and says the row is still held, so the worker does not
 * take it for a lost lease.
 */
describe('heartbeat beside a locked row', () => {
  // A migrated database and no app: no worker claims the actions below.
  const db = withTestDatabase('heartbeat');
  const connect = () => db.connect();

  it('extends the free rows at once, reports the locked one as held but not extended, and fences the rest', async () => {
    const [holder, heartbeat] = [await connect(), await connect()];
    await holder.query(`INSERT INTO actions (type) VALUES ('instance.update'), ('instance.update'), ('instance.update')`);
    const { rows } = await holder.query<{ id: string }>({ ...CLAIM_ACTIONS_SQL, values: ['w1', ['instance.update'], [null], 3, 1_000, false] });
    const [free, busy, stale] = rows.map((r) => r.id).sort((a, b) => Number(a) - Number(b));

    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM actions WHERE id = $1 FOR UPDATE', [busy]);
    // `stale` is listed with a wrong attempt number: not this worker's lease any more.
    const beat = heartbeat.query<{ id: string; extended: boolean }>({ ...EXTEND_LEASES_SQL, values: ['w1', [busy, free, stale], [1, 1, 2], 60_000] });
    const answer = await Promise.race([beat, new Promise<'waited'>((r) => setTimeout(() => r('waited'), 3_000))]);
    await holder.query('COMMIT');
    expect(answer).not.toBe('waited');

    const byId = Object.fromEntries((await beat).rows.map((r) => [r.id, r.extended]));
    expect(byId).toEqual({ [free]: true, [busy]: false });
    const { rows: leases } = await holder.query<{ id: string; long: boolean }>(
      `SELECT id::text, lease_expires_at > now() + interval '30 seconds' AS long FROM actions WHERE id = ANY($1::bigint[])`,
      [[free, busy, stale]],
    );
    expect(Object.fromEntries(leases.map((l) => [l.id, l.long]))).toEqual({ [free]: true, [busy]: false, [stale]: false });
  });

  it('never shortens a lease that is already longer than the one it grants', async () => {
    const c = await connect();
    await c.query(`INSERT INTO actions (type) VALUES ('instance.delete')`);
    const {
      rows: [{ id }],
    } = await c.query<{ id: string }>({ ...CLAIM_ACTIONS_SQL, values: ['w2', ['instance.delete'], [null], 1, 1_000, false] });
    // An operator has given the attempt an hour by hand.
    await c.query(`UPDATE actions SET lease_expires_at = now() + interval '1 hour' WHERE id = $1`, [id]);
    const beat = await c.query<{ extended: boolean }>({ ...EXTEND_LEASES_SQL, values: ['w2', [id], [1], 5_000] });
    expect(beat.rows).toEqual([expect.objectContaining({ extended: true })]);
    const { rows } = await c.query<{ left_s: number }>(`SELECT extract(epoch FROM lease_expires_at - now())::float8 AS left_s FROM actions WHERE id = $1`, [
      id,
    ]);
    expect(rows[0].left_s).toBeGreaterThan(3_500);
  });
});
