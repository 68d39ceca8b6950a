import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { MIGRATIONS } from '../../src/database/migrations';
import { CLAIM_ACTIONS_SQL } from '../../src/queue/sql/claim-actions.sql';
import { FINISH_ATTEMPTS_SQL } from '../../src/queue/sql/finish-attempts.sql';
import { insertAction, migrateDatabase, withTestDatabase } from '../support';

const TYPE = 'check.down';

async function revert(url: string, count: number): Promise<void> {
  const ds = new DataSource(buildDataSourceOptions(url, 1));
  await ds.initialize();
  try {
    for (let i = 0; i < count; i++) await ds.undoLastMigration({ transaction: 'each' });
  } finally {
    await ds.destroy();
  }
}

/**
 * Migration 039's down migration (and up again) with work in flight: a group
 * whose head runs with actions behind it, a group that emptied (its record
 * names a cancelled action), a group whose head was promoted. After 039 and
 * every later migration are reverted, 038's functions must find every head in
 * action_groups.head_id, and the groups must go on in order; after migrating
 * up again the view must show the same heads.
 */
describe('down to 038 and up again with groups mid-flight', () => {
  const db = withTestDatabase('m039_down', { migrated: false });

  it('keeps each group with its one head through the down and the up migration', async () => {
    await migrateDatabase(db.url);
    const c: Client = await db.connect();
    const running = [await insertAction(c, 961, TYPE), await insertAction(c, 961, TYPE), await insertAction(c, 961, TYPE)];
    const emptied = await insertAction(c, 962, TYPE);
    await c.query(`UPDATE actions SET status = 'cancelled', finished_at = now() WHERE id = $1`, [emptied]);
    const promoted = [await insertAction(c, 963, TYPE), await insertAction(c, 963, TYPE)];
    await c.query(`UPDATE actions SET status = 'cancelled', finished_at = now() WHERE id = $1`, [promoted[0]]);
    const { rows: held } = await c.query<{ id: string; attempts: number }>({ ...CLAIM_ACTIONS_SQL, values: ['w1', [TYPE], [null], 1, 60_000, false] });
    expect(held.map((h) => h.id)).toEqual([running[0]]);

    // Every migration from 039 on, down to 038.
    await revert(db.url, MIGRATIONS.length - MIGRATIONS.findIndex((m) => m.name === 'GroupHeadRecords1764460800039'));
    expect((await c.query(`SELECT to_regclass('action_group_heads') AS t`)).rows[0].t).toBeNull();
    const groups = async () =>
      (
        await c.query<{ lock_id: string; head_id: string | null }>(
          `SELECT lock_id::text, head_id::text FROM action_groups WHERE lock_id BETWEEN 961 AND 963 ORDER BY lock_id`,
        )
      ).rows;
    expect(await groups()).toEqual([
      { lock_id: '961', head_id: running[0] },
      { lock_id: '962', head_id: null },
      { lock_id: '963', head_id: promoted[1] },
    ]);

    // On 038: a new head in the emptied group, a finish that promotes, one head per group.
    const again = await insertAction(c, 962, TYPE);
    await insertAction(c, 963, TYPE);
    await c.query({
      ...FINISH_ATTEMPTS_SQL,
      values: ['w1', [held[0].id], [held[0].attempts], ['done'], ['{}'], [null], [null], [0], ['done'], [0], [], [], 60_000, 0],
    });
    expect(await groups()).toEqual([
      { lock_id: '961', head_id: running[1] },
      { lock_id: '962', head_id: again },
      { lock_id: '963', head_id: promoted[1] },
    ]);
    const { rows: heads } = await c.query<{ id: string }>(`SELECT id::text FROM actions WHERE lock_id BETWEEN 961 AND 963 AND is_head ORDER BY actions.id`);
    expect(heads.map((h) => h.id).sort()).toEqual([running[1], again, promoted[1]].sort());

    await migrateDatabase(db.url);
    expect(await groups()).toEqual([
      { lock_id: '961', head_id: running[1] },
      { lock_id: '962', head_id: again },
      { lock_id: '963', head_id: promoted[1] },
    ]);
    // And 039's functions carry on from the records the up migration wrote.
    await c.query(`UPDATE actions SET status = 'cancelled', finished_at = now() WHERE id = $1`, [running[1]]);
    const late = await insertAction(c, 961, TYPE);
    expect(await groups()).toEqual([
      { lock_id: '961', head_id: running[2] },
      { lock_id: '962', head_id: again },
      { lock_id: '963', head_id: promoted[1] },
    ]);
    const { rows: h961 } = await c.query<{ id: string; is_head: boolean }>(
      `SELECT id::text, is_head FROM actions WHERE lock_id = 961 AND holds_group ORDER BY id`,
    );
    expect(h961).toEqual([
      { id: running[2], is_head: true },
      { id: late, is_head: false },
    ]);
  });
});
