import { Client } from 'pg';
import { CLAIM_ACTIONS_SQL } from '../../src/queue/sql/claim-actions.sql';
import { EXTEND_LEASES_SQL } from '../../src/queue/sql/extend-leases.sql';
import { migratedUpTo } from '../fixtures/previous-releases';
import { insertAction, withTestDatabase } from '../support';

const TYPE = 'check.rr';

/**
 * A REPEATABLE READ producer is failed (40001) by a change of its group's
 * head since its snapshot, not by the head's heartbeat. Seen failing on an
 * earlier form of 039, whose guard locked the group's head FOR SHARE: that
 * raises 40001 when *any* committed update touched the head's row after the
 * snapshot, not only a change of head. A
 * running head's heartbeat updates its row every LEASE_MS / 3 (10 s by
 * default), so a REPEATABLE READ producer whose transaction is older than the
 * last heartbeat can never enqueue behind a running head (each retry that takes
 * as long fails again), although the group's head did not change. On 038 the
 * guard was the group row, written only when the head changed; now it is the
 * head records (aq_check_group_unchanged).
 */
async function rrInsertBehindHeartbeatingHead(c: Client, rr: Client, G: number): Promise<string | undefined> {
  await insertAction(c, G, TYPE);
  const { rows: held } = await c.query<{ id: string; attempts: number }>({ ...CLAIM_ACTIONS_SQL, values: ['w1', [TYPE], [null], 1, 60_000, false] });
  expect(held).toHaveLength(1);
  await rr.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
  await rr.query('SELECT 1'); // the snapshot
  const { rows: beat } = await c.query<{ extended: boolean }>({ ...EXTEND_LEASES_SQL, values: ['w1', [held[0].id], [held[0].attempts], 60_000] });
  expect(beat.map((b) => b.extended)).toEqual([true]);
  try {
    await insertAction(rr, G, TYPE);
    await rr.query('COMMIT');
    return undefined;
  } catch (error) {
    await rr.query('ROLLBACK');
    return (error as { code?: string }).code;
  }
}

describe('a REPEATABLE READ producer behind a running head whose lease was renewed after its snapshot', () => {
  describe('on 038 (the behaviour before)', () => {
    const db = withTestDatabase('m039_rr_beat_038', { migrated: false });
    it('enqueues', async () => {
      await migratedUpTo(db.url, 'HandOffFastPath1764460800038');
      const [c, rr] = [await db.connect(), await db.connect()];
      expect(await rrInsertBehindHeartbeatingHead(c, rr, 931)).toBeUndefined();
    });
  });

  describe('on this schema', () => {
    const db = withTestDatabase('m039_rr_beat');
    it('enqueues (the head did not change; a heartbeat is no reason for a serialization failure)', async () => {
      const [c, rr] = [await db.connect(), await db.connect()];
      expect(await rrInsertBehindHeartbeatingHead(c, rr, 931)).toBeUndefined();
    });
  });
});
