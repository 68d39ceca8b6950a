import { CLAIM_ACTIONS_SQL } from '../../src/queue/sql/claim-actions.sql';
import { sleep, withTestDatabase } from '../support';

/**
 * TRUNCATE fires no row trigger. Found by trying it: `TRUNCATE actions
 * CASCADE` while an action ran passed the guard on running actions, and left
 * action_groups pointing at a head that was gone, so the group's next action
 * stayed pending, never its head, for good (and no count showed it blocked).
 */
describe('TRUNCATE of the actions table', () => {
  // A migrated database and no app: the test plays the worker's claim itself.
  const db = withTestDatabase('operator_sql');

  it('is refused while an action runs under a live lease, naming it, and nothing is removed', async () => {
    const c = await db.connect();
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type) VALUES (5, 'instance.create'), (5, 'instance.update') RETURNING id::text`,
    );
    const claimed = await c.query<{ id: string }>({ ...CLAIM_ACTIONS_SQL, values: ['w1', ['instance.create'], [null], 1, 1_500, false] });
    expect(claimed.rows.map((r) => r.id)).toEqual([rows[0].id]);

    await expect(c.query('TRUNCATE actions CASCADE')).rejects.toMatchObject({
      code: '55006',
      message: expect.stringContaining(`action ${rows[0].id}: it is running`),
    });
    const { rows: left } = await c.query(`SELECT count(*)::int AS n FROM actions`);
    expect(left[0].n).toBe(2);

    // Once its lease has expired (its worker is gone), the table may be emptied.
    await sleep(1_600);
    await c.query('TRUNCATE actions CASCADE');
  });

  it('takes the group rows with it: the next action of a group is its head again', async () => {
    const c = await db.connect();
    await c.query(`INSERT INTO actions (lock_id, type) VALUES (7, 'instance.create'), (7, 'instance.update')`);
    await c.query('TRUNCATE actions CASCADE');
    expect((await c.query(`SELECT count(*)::int AS n FROM action_groups`)).rows[0].n).toBe(0);

    const {
      rows: [next],
    } = await c.query<{ id: string; is_head: boolean }>(`INSERT INTO actions (lock_id, type) VALUES (7, 'instance.create') RETURNING id::text, is_head`);
    expect(next.is_head).toBe(true);
    const { rows: group } = await c.query(`SELECT head_id::text FROM action_groups WHERE lock_id = 7`);
    expect(group).toEqual([{ head_id: next.id }]);
    const claimed = await c.query<{ id: string }>({ ...CLAIM_ACTIONS_SQL, values: ['w1', ['instance.create'], [null], 5, 60_000, false] });
    expect(claimed.rows.map((r) => r.id)).toEqual([next.id]);
  });
});
