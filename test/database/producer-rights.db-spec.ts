import { Client } from 'pg';
import { withTestDatabase } from '../support';

/**
 * A producer role with the rights docs/sql-producers.md lists (SELECT and
 * INSERT on `actions`, the group tables, no UPDATE on `actions`) can enqueue
 * into a new group, behind a head, and from a REPEATABLE READ transaction,
 * whose insert trigger checks that the group's head did not change since its
 * snapshot. Seen failing with that check written as a row lock in the
 * trigger itself (an earlier form of `aq_check_group_unchanged`, src/database/functions/aq_check_group_unchanged.sql): "permission
 * denied for table actions" in REPEATABLE READ only.
 */
describe('a producer role with the documented rights', () => {
  const db = withTestDatabase('producer_rights');
  const role = `aq_producer_${process.pid}`;

  afterAll(async () => {
    const c = await db.connect();
    await c.query(`DROP OWNED BY ${role}`);
    await c.query(`DROP ROLE IF EXISTS ${role}`);
  });

  it('enqueues grouped actions in READ COMMITTED and REPEATABLE READ without UPDATE on actions', async () => {
    const admin = await db.connect();
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query(`GRANT USAGE ON SCHEMA action_queue TO ${role}`);
    await admin.query(`GRANT SELECT, INSERT ON actions TO ${role}`);
    await admin.query(`GRANT USAGE ON SEQUENCE actions_id_seq TO ${role}`);
    await admin.query(`GRANT SELECT ON action_group_depth_limits TO ${role}`);
    await admin.query(`GRANT SELECT, INSERT, UPDATE ON action_group_locks TO ${role}`);
    await admin.query(`GRANT SELECT, INSERT, DELETE ON action_group_heads TO ${role}`);

    const url = new URL(db.url);
    url.username = role;
    const producer = new Client({ connectionString: url.toString() });
    await producer.connect();
    try {
      await producer.query(`INSERT INTO actions (lock_id, type) VALUES (1, 'rights.check')`);
      await producer.query(`INSERT INTO actions (lock_id, type) VALUES (1, 'rights.check')`);
      await producer.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await producer.query(`INSERT INTO actions (lock_id, type) VALUES (1, 'rights.check')`);
      await producer.query('COMMIT');
    } finally {
      await producer.end();
    }
    const { rows } = await admin.query<{ id: string; is_head: boolean }>(`SELECT id, is_head FROM actions WHERE lock_id = 1 ORDER BY id`);
    expect(rows.map((r) => r.is_head)).toEqual([true, false, false]);
  });
});
