import { Client } from 'pg';
import { CLAIM_CHUNKS_SQL } from '../src/queue/sql/claim-actions.sql';
import { FINISH_CHUNKS_SQL } from '../src/queue/sql/finish-attempts.sql';
import { createMigratedDatabase, dropDatabase, enqueueSql, withClient } from './bench-database';
import { processCpuUs } from './cpu-per-action';

/**
 * How far the queue's statements are from the bare row work they have to do:
 * `npx ts-node bench/row-work-floor.ts [workload ...]` (or
 * `node dist/bench/row-work-floor.js` after a build). The four workloads of
 * the hot path's targets, each against its floor in the same run, rounds
 * alternated (product, floor, product, floor, ...):
 *
 * - **chunks** (of 50) and **chain** (chunks of 1, a serial chain): one
 *   group, one connection; the product is the worker's finishing statement
 *   (aq_finish_attempts with its chunk parameters, as the worker sends it):
 *   record the chunk done, promote and hand the group's next chunk to the
 *   same worker, with every trigger and guard. A number N among the
 *   arguments is a chunk size of its own (1 is the chain).
 * - **wide**: {@link WIDE_GROUPS} groups of one action each per statement:
 *   the worker's finishing statement ending them and taking as many new
 *   heads in the same statement, as the worker does with that many slots
 *   free (its claim and finish of many groups).
 * - **enqueue**: one SQL `INSERT … SELECT` of {@link ENQUEUE_ROWS} actions
 *   into {@link ENQUEUE_GROUPS} groups it creates (row i into group
 *   i % 1 000), the benchmark's enqueue statement.
 *
 * The **floor** of each is one prepared statement writing only the rows the
 * product writes (counted with pg_stat_xact_user_tables: the finished rows,
 * their trace rows, the next work's leases, the groups' head records; for the
 * enqueue the actions with the columns the insert trigger sets, the groups'
 * lock rows and head records) with the session's triggers off
 * (`session_replication_role = replica`: no guard of running rows, no
 * promotion trigger, no flow-control look-ups, no fence of the prefix, no
 * group lock). It prints the backend's CPU µs per action of each (from
 * `/proc/<pid>/stat`), their ratio, and the CPU µs per action of this
 * Node process while it drives the product: the pg driver's work of building
 * the statement and reading its rows, not the service (which adds its
 * executor, handlers and bookkeeping: `npm run bench -- --only=cost` measures
 * the service's Node CPU per action).
 *
 * The floor is not a correct queue (it keeps none of G2, G3 or G5 against
 * other writers); it says what the guarantees cost on top of the writes, and
 * which targets no implementation of this schema can reach on this machine.
 * It needs a superuser connection (session_replication_role).
 */

const TYPE = 'instance.sync';
/** The wide workload's type: the demo's unchunked handler. */
const WIDE_TYPE = 'instance.update';
const LEASE_MS = 60_000;
const ROUNDS = 3;
/** Actions per measured round, per side, of the serial chain (about a second of CPU). */
const CHAIN_ACTIONS_PER_ROUND = 3_000;
/**
 * Actions per measured round of chunks and of the wide workload: about a
 * second of CPU, so that the clock ticks of /proc (10 ms) are within 1-2 % of
 * a round.
 */
const ACTIONS_PER_ROUND = 15_000;
/** Groups ended and taken per statement in the wide workload. */
export const WIDE_GROUPS = 100;
/** Rows of one enqueue statement (one measured round), and the groups it creates. */
export const ENQUEUE_ROWS = 100_000;
export const ENQUEUE_GROUPS = 1_000;
/** Rows of the enqueue's warm-up statement (the benchmark's 10 000-row fill). */
const ENQUEUE_WARM_UP_ROWS = 10_000;
/** The chunk types and sizes the demo worker sends with every finish. */
const DEMO_CHUNKING: [string[], number[]] = [[TYPE], [50]];

interface Held {
  id: string;
  attempt: number;
}

/** One side of a comparison: a database and a loop that advances it one statement at a time. */
interface Side {
  client: Client;
  pid: number;
  /** Runs one statement of at most `want` actions (the enqueue's is fixed); returns how many actions it did. */
  step(want: number): Promise<number>;
}

/** The worker's finishing statement over `held`, ending each as done and taking up to `take` actions of `types`. */
async function finishAsWorker(c: Client, held: Held[], chunkOf: string | null, types: string[], take: number, chunking: [string[], number[]]): Promise<Held[]> {
  const fill = <T>(v: T): T[] => held.map(() => v);
  const { rows } = await c.query<{ kind: string; id: string; attempts: number }>({
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
      types,
      types.map(() => null),
      LEASE_MS,
      take,
      fill(chunkOf),
      ...chunking,
    ],
  });
  return rows.filter((r) => r.kind === 'claimed').map((r) => ({ id: r.id, attempt: r.attempts }));
}

async function chunkProduct(c: Client, size: number): Promise<Side> {
  const { rows } = await c.query<{ id: string; attempts: number }>({ ...CLAIM_CHUNKS_SQL, values: ['w', [TYPE], [null], 1, LEASE_MS, false, [TYPE], [size]] });
  let held: Held[] = rows.map((r) => ({ id: r.id, attempt: r.attempts }));
  const step = async (): Promise<number> => {
    const n = held.length;
    const chunking: [string[], number[]] = size > 1 ? [[TYPE], [size]] : [[], []];
    held = await finishAsWorker(c, held, size > 1 ? held[0].id : null, [TYPE], 1, chunking);
    if (held.length === 0) throw new Error('the chain ended: enqueue more actions');
    return n;
  };
  return { client: c, pid: await backendPid(c), step };
}

async function chunkFloor(c: Client, size: number): Promise<Side> {
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

/**
 * The wide workload as the worker runs it: claim WIDE_GROUPS heads, then each
 * statement ends the ones held and takes as many new heads (the slots it
 * frees), with the demo worker's chunk parameters.
 */
async function wideProduct(c: Client): Promise<Side> {
  const { rows } = await c.query<{ id: string; attempts: number }>({
    ...CLAIM_CHUNKS_SQL,
    values: ['w', [WIDE_TYPE], [null], WIDE_GROUPS, LEASE_MS, false, ...DEMO_CHUNKING],
  });
  let held: Held[] = rows.map((r) => ({ id: r.id, attempt: r.attempts }));
  const step = async (): Promise<number> => {
    const n = held.length;
    held = await finishAsWorker(c, held, null, [WIDE_TYPE], n, DEMO_CHUNKING);
    if (held.length === 0) throw new Error('the groups ran out: enqueue more actions');
    return n;
  };
  return { client: c, pid: await backendPid(c), step };
}

/**
 * The wide workload's rows with triggers off: per action, the finished row,
 * its trace row, its group's head record marked emptied (the one write of an
 * emptying), and the next group's head leased.
 */
async function wideFloor(c: Client): Promise<Side> {
  await c.query('SET session_replication_role = replica');
  const { rows } = await c.query<{ id: string }>(
    `UPDATE actions SET status = 'running', lease_owner = 'w', lease_expires_at = now() + interval '1 minute',
            attempts = 1, attempt_started_at = clock_timestamp()
     WHERE id IN (SELECT id FROM actions ORDER BY id LIMIT $1) RETURNING id::text`,
    [WIDE_GROUPS],
  );
  let ids = rows.map((r) => r.id).sort((a, b) => Number(a) - Number(b));
  const text = `
    WITH ended AS (
      UPDATE actions AS a SET status = 'done', holds_group = false, is_head = false, result = '{}', finished_at = clock_timestamp(),
                              lease_owner = NULL, lease_expires_at = NULL
      WHERE a.id = ANY($1::bigint[]) AND a.lease_owner = 'w'
      RETURNING a.id, a.lock_id, a.attempts, a.attempt_started_at
    ), traced AS (
      INSERT INTO action_attempts (action_id, lock_id, attempt, worker_id, started_at, finished_at, outcome)
      SELECT e.id, e.lock_id, e.attempts, 'w', e.attempt_started_at, clock_timestamp(), 'done' FROM ended AS e
    ), emptied AS (
      UPDATE action_group_heads AS h SET emptied = true FROM ended AS e WHERE h.lock_id = e.lock_id AND h.head_id = e.id
    ), next AS (
      SELECT a.id FROM actions AS a WHERE a.id > $2::bigint ORDER BY a.id LIMIT $3
    ), leased AS (
      UPDATE actions AS a SET status = 'running', attempts = a.attempts + 1, lease_owner = 'w',
                              lease_expires_at = now() + interval '1 minute', attempt_started_at = clock_timestamp()
      FROM next WHERE a.id = next.id
      RETURNING a.id, a.type, a.payload, a.attempts
    )
    SELECT l.id::text AS id FROM leased AS l ORDER BY l.id`;
  const step = async (): Promise<number> => {
    const n = ids.length;
    const { rows: next } = await c.query<{ id: string }>({ name: 'row_work_floor_wide', text, values: [ids, ids[n - 1], n] });
    ids = next.map((r) => r.id);
    if (ids.length === 0) throw new Error('the groups ran out: enqueue more actions');
    return n;
  };
  return { client: c, pid: await backendPid(c), step };
}

/** Each enqueue statement writes into groups no statement used before (ids from `firstGroup` on). */
function enqueueSide(c: Client, pid: number, run: (rows: number, firstGroup: number) => Promise<void>): Side {
  // Above the fill's groups.
  let nextGroup = 1_000_000;
  const step = async (want: number): Promise<number> => {
    const rows = Math.min(want, ENQUEUE_ROWS);
    await run(rows, nextGroup);
    nextGroup += ENQUEUE_GROUPS;
    return rows;
  };
  return { client: c, pid, step };
}

/** The benchmark's enqueue statement (bench/run.ts "Enqueue"): every trigger on. */
async function enqueueProduct(c: Client): Promise<Side> {
  return enqueueSide(c, await backendPid(c), async (rows, firstGroup) => {
    await c.query({
      name: 'row_work_enqueue',
      text: `INSERT INTO actions (lock_id, type, payload)
             SELECT $3::bigint + i % $4::int, $1, '{"durationMs": 0}'::jsonb FROM generate_series(1, $2::int) AS i ORDER BY i`,
      values: [WIDE_TYPE, rows, firstGroup, ENQUEUE_GROUPS],
    });
  });
}

/**
 * The same rows with triggers off: the actions with the columns the insert
 * trigger sets (an id from the sequence, the group's first action its head),
 * and each new group's lock row and first head record.
 */
async function enqueueFloor(c: Client): Promise<Side> {
  await c.query('SET session_replication_role = replica');
  return enqueueSide(c, await backendPid(c), async (rows, firstGroup) => {
    await c.query({
      name: 'row_work_floor_enqueue',
      text: `
        WITH added AS (
          INSERT INTO actions (id, lock_id, type, payload, is_head)
          SELECT nextval('actions_id_seq'), $3::bigint + i % $4::int, $1, '{"durationMs": 0}'::jsonb, i <= $4::int
          FROM generate_series(1, $2::int) AS i ORDER BY i
          RETURNING id, lock_id, is_head
        ), locked AS (
          INSERT INTO action_group_locks (lock_id) SELECT a.lock_id FROM added AS a WHERE a.is_head
        )
        INSERT INTO action_group_heads (lock_id, version, head_id) SELECT a.lock_id, 1, a.id FROM added AS a WHERE a.is_head`,
      values: [WIDE_TYPE, rows, firstGroup, ENQUEUE_GROUPS],
    });
  });
}

async function backendPid(c: Client): Promise<number> {
  return (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
}

/** CPU µs per action of the backend, and of this Node process, over `actions` actions of `side`. */
async function measure(side: Side, actions: number): Promise<{ backendUs: number; clientUs: number }> {
  const before = processCpuUs(side.pid)!;
  const node = process.cpuUsage();
  let done = 0;
  while (done < actions) done += await side.step(actions - done);
  const used = process.cpuUsage(node);
  return { backendUs: (processCpuUs(side.pid)! - before) / done, clientUs: (used.user + used.system) / done };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A workload: its label, how to fill each database, its two sides, and its round sizes. */
interface Workload {
  label: string;
  fill(c: Client): Promise<void>;
  product(c: Client): Promise<Side>;
  floor(c: Client): Promise<Side>;
  warmUp: number;
  round: number;
}

/** Median backend CPU µs per action of product and floor, and Node's CPU µs per action beside the product. */
export interface FloorResult {
  label: string;
  productUs: number;
  floorUs: number;
  clientUs: number;
  /** Every round's figures, in the order run (product, floor, product, floor, ...). */
  rounds: { productUs: number; floorUs: number }[];
}

/** The chunked workload of `size` actions per chunk (1: the serial chain). */
export function chunkWorkload(size: number): Workload {
  const round = size === 1 ? CHAIN_ACTIONS_PER_ROUND : ACTIONS_PER_ROUND;
  return {
    label: size === 1 ? 'chain' : `chunks of ${size}`,
    fill: async (c) => {
      await enqueueSql(c, { count: (ROUNDS + 1) * round + 2 * size, lockExpr: '0' }, TYPE);
    },
    product: (c) => chunkProduct(c, size),
    floor: (c) => chunkFloor(c, size),
    warmUp: round / 2,
    round,
  };
}

/** WIDE_GROUPS groups of one action ended and taken per statement. */
export const WIDE_WORKLOAD: Workload = {
  label: `wide (${WIDE_GROUPS} groups)`,
  fill: async (c) => {
    await enqueueSql(c, { count: (ROUNDS + 1) * ACTIONS_PER_ROUND + 2 * WIDE_GROUPS, lockExpr: 'i' }, WIDE_TYPE);
  },
  product: wideProduct,
  floor: wideFloor,
  warmUp: ACTIONS_PER_ROUND / 2,
  round: ACTIONS_PER_ROUND,
};

/** ENQUEUE_ROWS actions into ENQUEUE_GROUPS new groups per statement. */
export const ENQUEUE_WORKLOAD: Workload = {
  label: `enqueue (${ENQUEUE_GROUPS} groups)`,
  fill: async (c) => {
    // What the benchmark's enqueue scenario holds first (bench/run.ts): half in one deep group, half in groups of 10,
    // and statistics of the head records too, so that the insert trigger's plans are not made for empty tables.
    await c.query(
      `INSERT INTO actions (lock_id, type, payload)
       SELECT CASE WHEN i % 2 = 0 THEN 0 ELSE 1 + (i / 20) END, 'instance.update', '{}'::jsonb
       FROM generate_series(1, 10000) AS i ORDER BY i`,
    );
    await c.query('ANALYZE action_group_heads');
  },
  product: enqueueProduct,
  floor: enqueueFloor,
  warmUp: ENQUEUE_WARM_UP_ROWS,
  round: ENQUEUE_ROWS,
};

/**
 * Measures one workload: two databases filled alike, a warm-up of each side,
 * then ROUNDS rounds alternating product and floor. Returns the medians.
 */
export async function rowWorkFloor(w: Workload): Promise<FloorResult> {
  const names = [`aq_floor_product_${process.pid}`, `aq_floor_bare_${process.pid}`];
  const urls = await Promise.all(names.map((n) => createMigratedDatabase(n)));
  try {
    return await withClient(urls[0], (p) =>
      withClient(urls[1], async (f) => {
        for (const c of [p, f]) {
          await w.fill(c);
          await c.query('ANALYZE actions');
        }
        const sides = [await w.product(p), await w.floor(f)];
        for (const s of sides) await measure(s, w.warmUp);
        const rounds: { productUs: number; floorUs: number }[] = [];
        const client: number[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          const product = await measure(sides[0], w.round);
          const floor = await measure(sides[1], w.round);
          rounds.push({ productUs: product.backendUs, floorUs: floor.backendUs });
          client.push(product.clientUs);
        }
        return {
          label: w.label,
          productUs: median(rounds.map((r) => r.productUs)),
          floorUs: median(rounds.map((r) => r.floorUs)),
          clientUs: median(client),
          rounds,
        };
      }),
    );
  } finally {
    for (const n of names) await dropDatabase(n);
  }
}

/** Workloads named on the command line: chunks, chain, wide, enqueue, or a chunk size; none: the four. */
function workloadsOf(args: string[]): Workload[] {
  if (args.length === 0) return [chunkWorkload(50), chunkWorkload(1), WIDE_WORKLOAD, ENQUEUE_WORKLOAD];
  return args.map((a) => {
    if (a === 'chunks') return chunkWorkload(50);
    if (a === 'chain') return chunkWorkload(1);
    if (a === 'wide') return WIDE_WORKLOAD;
    if (a === 'enqueue') return ENQUEUE_WORKLOAD;
    const size = Number(a);
    if (!Number.isInteger(size) || size < 1) throw new Error(`unknown workload ${a}: chunks, chain, wide, enqueue or a chunk size`);
    return chunkWorkload(size);
  });
}

async function main(): Promise<void> {
  const workloads = workloadsOf(process.argv.slice(2));
  process.stdout.write('CPU µs per action, product against its floor (median of alternated rounds; node: this process driving the product):\n');
  process.stdout.write(
    `${'workload'.padEnd(22)} ${'product'.padStart(9)} ${'floor'.padStart(9)} ${'ratio'.padStart(7)} ${'node'.padStart(7)}  rounds (product/floor)\n`,
  );
  for (const w of workloads) {
    const r = await rowWorkFloor(w);
    const rounds = r.rounds.map((x) => `${x.productUs.toFixed(1)}/${x.floorUs.toFixed(1)}`).join(' ');
    process.stdout.write(
      `${r.label.padEnd(22)} ${r.productUs.toFixed(1).padStart(9)} ${r.floorUs.toFixed(1).padStart(9)} ${(r.productUs / r.floorUs).toFixed(2).padStart(7)} ${r.clientUs.toFixed(1).padStart(7)}  ${rounds}\n`,
    );
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(2);
  });
}
