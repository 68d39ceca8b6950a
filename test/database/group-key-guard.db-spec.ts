import { Client } from 'pg';
import { withTestDatabase } from '../support';

/** A type no handler runs: the actions stay pending. */
const PARKED = 'test.parked';

// "Keys are kept for good ... so a key names one group forever" (docs/rest-api.md,
// "String group keys"). Found by trying it: `DELETE FROM action_group_keys` of a key whose
// actions still wait let the next insert of that key intern a second lock id, a
// second group, whose head ran before the first group's pending actions (group
// order broken); an UPDATE renamed a group under its actions. Seen failing before
// migration 022: both statements succeeded.
describe('operator SQL on action_group_keys', () => {
  const db = withTestDatabase('group_key_guard');
  let c: Client;
  beforeAll(async () => {
    c = await db.connect();
  });

  const insertKeyed = async (key: string) =>
    (await c.query<{ id: string; lock_id: string }>(`INSERT INTO actions (group_key, type) VALUES ($1, $2) RETURNING id::text, lock_id::text`, [key, PARKED]))
      .rows[0];

  it('refuses to delete or rename a key while an action of its group is kept, naming the key (SQLSTATE 55006)', async () => {
    const first = await insertKeyed('tenant:7');
    await expect(c.query(`DELETE FROM action_group_keys WHERE group_key = 'tenant:7'`)).rejects.toMatchObject({
      code: '55006',
      message: expect.stringMatching(/group_key "tenant:7" .*lock_id -?\d+.* actions/),
    });
    await expect(c.query(`UPDATE action_group_keys SET group_key = 'tenant:8' WHERE group_key = 'tenant:7'`)).rejects.toMatchObject({ code: '55006' });
    await expect(c.query(`TRUNCATE action_group_keys`)).rejects.toMatchObject({ code: '55006' });
    // The key still names the one group.
    expect((await insertKeyed('tenant:7')).lock_id).toBe(first.lock_id);
  });

  it('lets a key go once no action of its group is left (the table emptied), by DELETE or TRUNCATE', async () => {
    await insertKeyed('tenant:9');
    await c.query('TRUNCATE actions CASCADE');
    expect((await c.query(`DELETE FROM action_group_keys WHERE group_key = 'tenant:9'`)).rowCount).toBe(1);
    await c.query('TRUNCATE action_group_keys');
    expect((await c.query('SELECT count(*)::int AS n FROM action_group_keys')).rows).toEqual([{ n: 0 }]);
  });
});
