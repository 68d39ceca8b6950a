import { Client } from 'pg';
import { CLAIM_ACTIONS_SQL } from '../../src/queue/sql/claim-actions.sql';
import { connect, withTestDatabase } from '../support';

/**
 * The guard of running rows (004, actions_before_update) after migration 046,
 * whose WHEN clause leaves out the holder's own change when that change
 * already sets holds_group and is_head as the guard would. Everyone else must
 * still meet the guard: another session that writes the same consistent
 * columns is refused (55006), and the holder's change that leaves holds_group
 * to the trigger still gets it set. Seen failing with the WHEN clause's
 * holder test left out (the stranger's update went through).
 */
describe('the guard of running rows', () => {
  const db = withTestDatabase('guard_running');
  let c: Client;

  beforeAll(async () => {
    c = await connect(db.url);
  });
  afterAll(async () => {
    await c?.end();
  });

  const claimOne = async (lockId: number): Promise<string> => {
    await c.query(`INSERT INTO actions (lock_id, type) VALUES ($1, 'g.one'), ($1, 'g.one')`, [lockId]);
    const { rows } = await c.query<{ id: string }>({ ...CLAIM_ACTIONS_SQL, values: ['holder', ['g.one'], [null], 1, 60_000, false] });
    return rows[0].id;
  };

  it('refuses a stranger who ends a running action, even one that sets holds_group and is_head itself', async () => {
    const id = await claimOne(901);
    for (const worker of [null, 'stranger']) {
      await c.query('BEGIN');
      if (worker) await c.query(`SELECT set_config('aq.worker', $1, true)`, [worker]);
      await expect(
        c.query(`UPDATE actions SET status = 'done', holds_group = false, is_head = false, lease_owner = NULL, lease_expires_at = NULL WHERE id = $1`, [id]),
      ).rejects.toMatchObject({ code: '55006' });
      await c.query('ROLLBACK');
    }
    const { rows } = await c.query(`SELECT status, lease_owner FROM actions WHERE id = $1`, [id]);
    expect(rows[0]).toEqual({ status: 'running', lease_owner: 'holder' });
  });

  it("lets the holder end its action, and still sets holds_group and is_head when the holder's update leaves them out", async () => {
    const id = await claimOne(902);
    await c.query('BEGIN');
    await c.query(`SELECT set_config('aq.worker', 'holder', true)`);
    await c.query(`UPDATE actions SET status = 'done', lease_owner = NULL, lease_expires_at = NULL WHERE id = $1`, [id]);
    await c.query('COMMIT');
    const { rows } = await c.query(`SELECT id::text, status, holds_group, is_head FROM actions WHERE lock_id = 902 ORDER BY id`);
    expect(rows[0]).toEqual({ id, status: 'done', holds_group: false, is_head: false });
    // The release trigger promoted the group's next action.
    expect(rows[1]).toMatchObject({ status: 'pending', holds_group: true, is_head: true });
  });

  it('refuses the holder a change the guard forbids to anyone: a finished action cannot hold its group again', async () => {
    const id = await claimOne(903);
    await c.query('BEGIN');
    await c.query(`SELECT set_config('aq.worker', 'holder', true)`);
    await c.query(`UPDATE actions SET status = 'done', holds_group = false, is_head = false, lease_owner = NULL, lease_expires_at = NULL WHERE id = $1`, [id]);
    await c.query('COMMIT');
    await expect(c.query(`UPDATE actions SET status = 'pending' WHERE id = $1`, [id])).rejects.toMatchObject({ code: '23514' });
  });
});
