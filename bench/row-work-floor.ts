import { Client } from 'pg';
import { CLAIM_CHUNKS_SQL } from '../src/queue/sql/claim-actions.sql';
import { FINISH_CHUNKS_SQL } from '../src/queue/sql/finish-attempts.sql';
import { createMigratedDatabase, dropDatabase, enqueueSql, withClient } from './bench-database';
import { processCpuUs } from './cpu-per-action';

/**
 * How far a hot group's statement is from the bare row work it has to do:
 * `node dist/bench/row-work-floor.js [size ...]`. For a serial chain (chunks
 * of 1) and ordered chunks of 50 (or the chunk sizes given), on one
 * connection and one group, it alternates
 * rounds of
 *
 * - **product**: the worker's finishing statement (aq_finish_attempts with
 *   its chunk parameters, as the worker sends it): record the chunk done,
 *   promote and hand the group's next chunk to the same worker, with every
 *   trigger and guard;
 * - **floor**: one prepared statement doing only the rows every step must
 *   write (the finished rows, their trace rows, the next chunk's leases, the
 *   group's head record) with the session's triggers off
 *   (`session_replication_role = replica`: no guard of running rows, no
 *   promotion trigger, no flow-control look-ups, no fence of the prefix).
 *
 * and prints the backend's CPU µs per action of each (from
 * `/proc/<pid>/stat`) and their ratio. The floor is not a correct queue (it
 * keeps none of G2, G3 or G5 against other writers); it says what the
 * guarantees cost on top of the writes, and which targets no
 * implementation of this schema can reach on this machine: a target whose
 * time per action is below the floor's CPU per action, Node's share not even
 * counted. It needs a superuser connection (session_replication_role).
 */

const TYPE = 'instance.sync';
const LEASE_MS = 60_000;
const ROUNDS = 3;
/** Actions per measured round, per side. */
const ACTIONS_PER_ROUND = 3_000;

interface Held {
  id: string;
  attempt: number;
}

/** One side of the comparison: a database with one deep group and a loop that advances it a chunk at a time. */
interface Side {
  client: Client;
  pid: number;
  step(): Promise<number>;
}

async function productSide(c: Client, size: number): Promise<Side> {
  const { rows } = await c.query<{ id: string; attempts: number }>({ ...CLAIM_CHUNKS_SQL, values: ['w', [TYPE], [null], 1, LEASE_MS, false, [TYPE], [size]] });
  let held: Held[] = rows.map((r) => ({ id: r.id, attempt: r.attempts }));
  const fill = <T>(v: T): T[] => held.map(() => v);
  const step = async (): Promise<number> => {
    const n = held.length;
    const chunkOf = size > 1 ? held[0].id : null;
    const { rows: next } = await c.query<{ kind: string; id: string; attempts: number }>({
      ...FINISH_CHUNKS_SQL,
      values: [
        'w',
        held.map((h) => h.id),
        held.map((h) => h.attempt),
        fill('done'),
        fill('{}'),
        fill(null),
        fill(null),
        fill(0),
        fill('done'),
        fill(0),
        [TYPE],
        [null],
        LEASE_MS,
        1,
        fill(chunkOf),
        size > 1 ? [TYPE] : [],
        size > 1 ? [size] : [],
      ],
    });
    held = next.filter((r) => r.kind === 'claimed').map((r) => ({ id: r.id, attempt: r.attempts }));
    if (held.length === 0) throw new Error('the chain ended: enqueue more actions');
    return n;
  };
  return { client: c, pid: await backendPid(c), step };
}

async function floorSide(c: Client, size: number): Promise<Side> {
  await c.query('SET session_replication_role = replica');
  const { rows } = await c.query<{ id: string }>(
    `UPDATE actions SET status = 'running', is_head = true, lease_owner = 'w', lease_expires_at = now() + interval '1 minute',
            attempts = 1, attempt_started_at = clock_timestamp()
     WHERE id IN (SELECT id FROM actions WHERE lock_id = 0 ORDER BY lock_id, id LIMIT $1) RETURNING id::text`,
    [size],
  );
  let ids = rows.map((r) => r.id).sort((a, b) => Number(a) - Number(b));
  const text = `
    WITH ended AS (
      UPDATE actions AS a SET status = 'done', holds_group = false, is_head = false, result = '{}', finished_at = clock_timestamp(),
                              lease_owner = NULL, lease_expires_at = NULL
      WHERE a.id = ANY($1::bigint[]) AND a.lease_owner = 'w'
      RETURNING a.id, a.lock_id, a.attempts, a.attempt_started_at
    ), traced AS (
      INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome, chunk_of)
      SELECT e.id, e.lock_id, e.attempts, 'w', e.attempt_started_at, clock_timestamp(), 'done', $3::bigint FROM ended AS e
    ), next AS (
      SELECT a.id FROM actions AS a WHERE a.lock_id = 0 AND a.holds_group AND a.id > $2::bigint ORDER BY a.lock_id, a.id LIMIT ${size}
    ), leased AS (
      UPDATE actions AS a SET status = 'running', is_head = (a.id = (SELECT min(n.id) FROM next AS n)), attempts = a.attempts + 1,
                              lease_owner = 'w', lease_expires_at = now() + interval '1 minute', attempt_started_at = clock_timestamp(),
                              chunk_of = (SELECT min(n.id) FROM next AS n)
      FROM next WHERE a.id = next.id
      RETURNING a.id, a.type, a.payload, a.attempts
    ), head AS (
      INSERT INTO action_group_heads (lock_id, version, head_id)
      SELECT 0, coalesce((SELECT max(h.version) FROM action_group_heads AS h WHERE h.lock_id = 0), 0) + 1, (SELECT min(n.id) FROM next AS n)
    )
    SELECT l.id::text AS id FROM leased AS l ORDER BY l.id`;
  const step = async (): Promise<number> => {
    const n = ids.length;
    const { rows: next } = await c.query<{ id: string }>({ name: 'row_work_floor', text, values: [ids, ids[n - 1], ids[0]] });
    ids = next.map((r) => r.id);
    if (ids.length === 0) throw new Error('the chain ended: enqueue more actions');
    return n;
  };
  return { client: c, pid: await backendPid(c), step };
}

async function backendPid(c: Client): Promise<number> {
  return (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
}

/** Backend CPU µs per action over `actions` actions of `side`. */
async function measure(side: Side, actions: number): Promise<number> {
  const before = processCpuUs(side.pid)!;
  let done = 0;
  while (done < actions) done += await side.step();
  return (processCpuUs(side.pid)! - before) / done;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Measures one chunk size: two databases with a group deep enough for every
 * round, a warm-up, then ROUNDS rounds alternating product and floor.
 * Returns the median CPU µs per action of each.
 */
export async function rowWorkFloor(size: number): Promise<{ size: number; productUs: number; floorUs: number }> {
  const names = [`aq_floor_product_${process.pid}`, `aq_floor_bare_${process.pid}`];
  const urls = await Promise.all(names.map((n) => createMigratedDatabase(n)));
  try {
    return await withClient(urls[0], (p) =>
      withClient(urls[1], async (f) => {
        const depth = (ROUNDS + 1) * ACTIONS_PER_ROUND + 2 * size;
        for (const c of [p, f]) {
          await enqueueSql(c, { count: depth, lockExpr: '0' }, TYPE);
          await c.query('ANALYZE actions');
        }
        const sides = [await productSide(p, size), await floorSide(f, size)];
        for (const s of sides) await measure(s, ACTIONS_PER_ROUND / 2);
        const us: number[][] = [[], []];
        for (let round = 0; round < ROUNDS; round++) for (const i of [0, 1]) us[i].push(await measure(sides[i], ACTIONS_PER_ROUND));
        return { size, productUs: median(us[0]), floorUs: median(us[1]) };
      }),
    );
  } finally {
    for (const n of names) await dropDatabase(n);
  }
}

async function main(): Promise<void> {
  process.stdout.write('backend CPU µs per action, one group, one connection (median of alternated rounds):\n');
  process.stdout.write(`${'chunk'.padEnd(8)} ${'product'.padStart(9)} ${'floor'.padStart(9)} ${'ratio'.padStart(7)}\n`);
  const sizes = process.argv.slice(2).map(Number);
  for (const size of sizes.length > 0 ? sizes : [1, 50]) {
    const r = await rowWorkFloor(size);
    process.stdout.write(
      `${String(r.size).padEnd(8)} ${r.productUs.toFixed(1).padStart(9)} ${r.floorUs.toFixed(1).padStart(9)} ${(r.productUs / r.floorUs).toFixed(2).padStart(7)}\n`,
    );
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(2);
  });
}
