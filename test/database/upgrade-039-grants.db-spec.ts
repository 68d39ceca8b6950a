import { Client } from 'pg';
import { migratedUpTo } from '../fixtures/previous-releases';
import { migrateDatabase, withTestDatabase } from '../support';

/**
 * Migration 039 as an upgrade (G11) of a database with SQL producers (G5):
 * roles keep working. Seen failing on an earlier form of 039, which granted
 * nothing on the new table and view.
 * Before 039 the triggers (which run with the producer's rights) needed rights
 * on `action_groups` (docs/sql-producers.md at 038: "every grouped insert
 * already needs rights on action_groups"). 039 renames that table (its grants
 * go with it) and adds `action_group_heads`, which the insert trigger now
 * reads, deletes from and inserts into, and a view `action_groups` that a
 * role allowed to read the old table could not read. 039 now grants on both
 * what each role had on the old table.
 */
describe('roles that worked on 038 keep working after the upgrade', () => {
  const db = withTestDatabase('m039_grants', { migrated: false });
  const producer = `aq_attack_producer_${process.pid}`;
  const reader = `aq_attack_reader_${process.pid}`;

  afterAll(async () => {
    const c = await db.connect();
    for (const role of [producer, reader]) {
      await c.query(`DROP OWNED BY ${role}`).catch(() => undefined);
      await c.query(`DROP ROLE IF EXISTS ${role}`);
    }
  });

  async function as(role: string): Promise<Client> {
    const url = new URL(db.url);
    url.username = role;
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    return client;
  }

  it('a producer role enqueues grouped actions and a reader reads action_groups, before and after 039', async () => {
    await migratedUpTo(db.url, 'HandOffFastPath1764460800038');
    const admin = await db.connect();
    for (const role of [producer, reader]) {
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
    }
    // What a grouped insert needs on 038.
    await admin.query(`GRANT SELECT, INSERT ON actions TO ${producer}`);
    await admin.query(`GRANT USAGE ON SEQUENCE actions_id_seq TO ${producer}`);
    await admin.query(`GRANT SELECT ON action_group_depth_limits TO ${producer}`);
    await admin.query(`GRANT SELECT, INSERT, UPDATE ON action_groups TO ${producer}`);
    // A monitoring role reading the groups.
    await admin.query(`GRANT SELECT ON action_groups TO ${reader}`);

    /** The errors the two roles meet (none expected). */
    const run = async (): Promise<string[]> => {
      const p = await as(producer);
      const r = await as(reader);
      const errors: string[] = [];
      try {
        await p
          .query(
            `INSERT INTO actions (lock_id, type) VALUES (1, 'check.grants');
             INSERT INTO actions (lock_id, type) VALUES (1, 'check.grants');
             INSERT INTO actions (lock_id, type) VALUES (2, 'check.grants')`,
          )
          .catch((e: Error) => errors.push(`producer: ${e.message}`));
        await r.query(`SELECT lock_id, head_id FROM action_groups`).catch((e: Error) => errors.push(`reader: ${e.message}`));
      } finally {
        await p.end();
        await r.end();
      }
      return errors;
    };
    expect(await run()).toEqual([]); // on 038
    await migrateDatabase(db.url);
    expect(await run()).toEqual([]); // on 039 and later
    const { rows } = await admin.query<{ lock_id: string; is_head: boolean }>(`SELECT lock_id::text, is_head FROM actions ORDER BY id`);
    expect(rows.filter((r) => r.is_head).map((r) => r.lock_id)).toEqual(['1', '2']);
  });
});
