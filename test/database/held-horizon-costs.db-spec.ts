import { Client } from 'pg';
import { CLAIM_ACTIONS_SQL, NEXT_DUE_SQL } from '../../src/queue/sql/claim-actions.sql';
import { FINISH_ATTEMPTS_SQL } from '../../src/queue/sql/finish-attempts.sql';
import { WAKE_PROBE_SQL } from '../../src/queue/sql/wake-probe.sql';
import { sleep, withTestDatabase } from '../support';

const LEASE_MS = 60_000;
const TYPE = 'horizon.held';
/** The group every action of the workload goes to: it empties after each one, as most groups of a wide workload do. */
const GROUP = 7;

interface Leased {
  id: string;
  attempts: number;
}

function finishValues(worker: string, held: Leased[], types: string[]): unknown[] {
  return [
    worker,
    held.map((h) => h.id),
    held.map((h) => h.attempts),
    held.map(() => 'done'),
    held.map(() => '{}'),
    held.map(() => null),
    held.map(() => null),
    held.map(() => 0),
    held.map(() => 'done'),
    held.map(() => 0),
    types,
    types.map(() => null),
    LEASE_MS,
    0,
  ];
}

/** Shared buffers a statement touched, planning included, from EXPLAIN (ANALYZE, BUFFERS): a count, not a time. */
async function buffersOf(c: Client, text: string, values: unknown[]): Promise<number> {
  type Node = { 'Shared Hit Blocks'?: number; 'Shared Read Blocks'?: number };
  const { rows } = await c.query<{ 'QUERY PLAN': { Plan: Node; Planning?: Node }[] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
  const [root] = rows[0]['QUERY PLAN'];
  const count = (n?: Node) => (n?.['Shared Hit Blocks'] ?? 0) + (n?.['Shared Read Blocks'] ?? 0);
  return count(root.Plan) + count(root.Planning);
}

/** What each statement of one action's path costs now, measured in a transaction that is rolled back. */
async function pathCosts(c: Client): Promise<Record<string, number>> {
  await c.query('BEGIN');
  try {
    // The insert and its triggers run inside the function, so the Function Scan counts them.
    const enqueue = await buffersOf(c, `SELECT pg_temp.enqueue($1::bigint, $2::text)`, [GROUP, TYPE]);
    const { rows: held } = await c.query<Leased>({ ...CLAIM_ACTIONS_SQL, values: ['w', [TYPE], [null], 1, LEASE_MS, false] });
    expect(held).toHaveLength(1);
    const finish = await buffersOf(c, FINISH_ATTEMPTS_SQL.text, finishValues('w', held, [TYPE]));
    return { enqueue, finish };
  } finally {
    await c.query('ROLLBACK');
  }
}

/** The idle instance's statements, each run once before it is measured (a connection's first call plans it, and the probe's first look is a sweep). */
async function idleCosts(c: Client): Promise<Record<string, number>> {
  const probe = [[TYPE], true, 1, 2, 0];
  await c.query({ ...WAKE_PROBE_SQL, values: probe });
  const wakeProbe = await buffersOf(c, WAKE_PROBE_SQL.text, probe);
  await c.query({ ...NEXT_DUE_SQL, values: [[TYPE]] });
  const nextDue = await buffersOf(c, NEXT_DUE_SQL.text, [[TYPE]]);
  return { wakeProbe, nextDue };
}

/**
 * An action's path does not slow down while another session holds
 * the MVCC horizon (docs/mvcc-pressure.md). Nothing written since the holder
 * began may be pruned, so any lookup that walks the versions of a row updated
 * per action, or index entries left behind per action, grows with the hold.
 * One group that empties after each action, one action at a time (enqueue,
 * claim, finish), 600 actions; the cost of each statement in shared buffers
 * after 100 actions and after 600. Seen failing on migration 038 (buffers
 * after 100 -> after 600 actions): enqueue 26 -> 78 (the insert's group lock
 * and head update walked the group row's versions), finish 37 -> 69 (the
 * hand-off's head lookup), wake probe 21 -> 58 (it walked the dead start of
 * the claim index). The next-due query is measured too: its planning read
 * the dead end of that index in the pressure benchmark.
 */
describe('the action path under a held MVCC horizon', () => {
  const db = withTestDatabase('held_horizon');

  it('costs the same after 600 actions as after 100: enqueue, finish with its hand-off, the next-due query and the wake probe', async () => {
    const [holder, worker, idle] = [await db.connect(), await db.connect(), await db.connect()];
    await worker.query(`CREATE FUNCTION pg_temp.enqueue(p_lock_id bigint, p_type text) RETURNS void LANGUAGE plpgsql AS $$
                        BEGIN INSERT INTO actions (lock_id, type) VALUES (p_lock_id, p_type); END $$`);
    await holder.query('BEGIN');
    await holder.query('SELECT txid_current()');
    try {
      const run = async (actions: number) => {
        for (let i = 0; i < actions; i++) {
          await worker.query(`INSERT INTO actions (lock_id, type) VALUES ($1, $2)`, [GROUP, TYPE]);
          const { rows: held } = await worker.query<Leased>({ ...CLAIM_ACTIONS_SQL, values: ['w', [TYPE], [null], 1, LEASE_MS, false] });
          expect(held).toHaveLength(1);
          await worker.query({ ...FINISH_ATTEMPTS_SQL, values: finishValues('w', held, [TYPE]) });
        }
      };
      // Measured a little over a second after the last action: the wake
      // probe looks back one second from its floor (its slack, as the claim's).
      await run(100);
      await sleep(1_100);
      const early = { ...(await pathCosts(worker)), ...(await idleCosts(idle)) };
      await run(500);
      await sleep(1_100);
      const late = { ...(await pathCosts(worker)), ...(await idleCosts(idle)) };
      // Growing with the hold would be several times the early cost (one
      // buffer or more per action for a walk); a few buffers of slack for
      // an index page split.
      const grown = Object.keys(early)
        .filter((statement) => late[statement] > early[statement] * 1.25 + 10)
        .map((statement) => `${statement}: ${early[statement]} -> ${late[statement]} buffers`);
      expect(grown).toEqual([]);
    } finally {
      await holder.query('ROLLBACK');
    }
  });
});
