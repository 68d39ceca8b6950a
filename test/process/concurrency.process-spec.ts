import { Client } from 'pg';
import { checkTrace, formatTraceReport, peakRunningByWorker, ServiceProcess, sleep, startServiceProcess, waitFor, withTestDatabase } from '../support';

/** Small seeded PRNG (mulberry32), so a failing run can be replayed with CONCURRENCY_SEED. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Spec {
  lockId: string;
  type: string;
  payload: { seq: number; durationMs: number };
  /** The group's tenant (docs/tenants.md); absent: the default tenant. */
  tenant?: string;
}

/** Tenants take turns in the claim: a group of every fourth lock id has the default tenant, the others one of three tenants. */
function tenantOf(lockId: number): string | undefined {
  return lockId % 4 === 0 ? undefined : ['acme', 'globex', 'initech'][lockId % 3];
}

/**
 * One holder and group order across processes: three service instances (separate OS processes, 8
 * worker slots each) drain 2 000 actions over 50 groups while producers keep
 * enqueueing through REST (single and batch, spread over the instances) and
 * plain SQL. The trace must show no overlap within a group, no order
 * violation, every action done exactly once, and work done by more than one
 * process. The groups belong to four tenants (the default one among them), so
 * the claim serves tenants in turn (aq_claim_tenant_turns) throughout.
 */
describe('three service processes on one queue', () => {
  const INSTANCES = 3;
  const ACTIONS = 2_000;
  const GROUPS = 50;
  const FIRST_LOCK_ID = 7_000;
  const seed = Number(process.env.CONCURRENCY_SEED ?? Date.now() % 1_000_000);
  const TYPES = ['instance.create', 'instance.update', 'instance.delete'];

  // Empty: the three processes start at once and migrate it (one at a time, on the migration lock).
  const db = withTestDatabase('concurrency', { migrated: false });
  let services: ServiceProcess[] = [];
  let pg: Client;

  beforeAll(async () => {
    services = await Promise.all(
      Array.from({ length: INSTANCES }, () => startServiceProcess(db.url, { WORKER_CONCURRENCY: '8', WORKER_POLL_INTERVAL_MS: '200', LOG_LEVEL: 'warn' })),
    );
    pg = await db.connect();
  }, 90_000);
  afterAll(async () => {
    await Promise.all(services.map((s) => s.kill()));
  });

  it(`runs 2 000 actions over 50 groups with no overlap, in id order, each exactly once (seed ${seed})`, async () => {
    const random = prng(seed);
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
    const specs: Spec[] = Array.from({ length: ACTIONS }, (_, seq) => {
      const lockId = FIRST_LOCK_ID + Math.floor(random() * GROUPS);
      const tenant = tenantOf(lockId);
      return {
        lockId: String(lockId),
        type: pick(TYPES),
        payload: { seq, durationMs: Math.floor(random() * 11) },
        ...(tenant === undefined ? {} : { tenant }),
      };
    });
    // Mixed chunks: REST batches, single REST posts and SQL multi-row inserts.
    type Chunk = { via: 'batch' | 'single' | 'sql'; items: Spec[]; service: ServiceProcess };
    const chunks: Chunk[] = [];
    for (let i = 0; i < specs.length;) {
      const r = random();
      const via = r < 0.5 ? 'batch' : r < 0.6 ? 'single' : 'sql';
      const size = via === 'single' ? 1 : 1 + Math.floor(random() * 120);
      chunks.push({ via, items: specs.slice(i, i + size), service: pick(services) });
      i += size;
    }

    const sqlClients = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const c = new Client({ connectionString: db.url });
        c.on('error', () => undefined); // a failed run drops the database under it
        await c.connect();
        // Detect a deadlock with a service transaction quickly on the producer's
        // side, so the producer is the one rolled back (and retries).
        await c.query(`SET deadlock_timeout = '50ms'`);
        return c;
      }),
    );
    const ids: string[][] = [];
    let sqlDeadlocks = 0;
    const send = async (chunk: Chunk, producer: number): Promise<string[]> => {
      if (chunk.via === 'sql') {
        // Rows sorted by lock id (stable, so each group keeps its input order):
        // a multi-row insert locks groups row by row, and one that visits them
        // out of order can deadlock with the service, which locks groups in
        // lock id order (the loser is rolled back whole and retried below).
        const sorted = [...chunk.items].sort((x, y) => Number(x.lockId) - Number(y.lockId));
        const values: unknown[] = [];
        const rows = sorted.map((s, k) => {
          values.push(s.lockId, s.type, JSON.stringify(s.payload), s.tenant ?? 'default');
          return `($${4 * k + 1}::bigint, $${4 * k + 2}, $${4 * k + 3}::jsonb, $${4 * k + 4})`;
        });
        // A multi-row insert over several groups locks them in input order, so
        // it can deadlock with another producer or a worker's completion; the
        // loser is rolled back whole and, like any SQL producer, retries.
        for (;;) {
          try {
            const { rows: out } = await sqlClients[producer].query<{ id: string }>(
              `INSERT INTO actions (lock_id, type, payload, tenant) VALUES ${rows.join(', ')} RETURNING id::text`,
              values,
            );
            const byInput = new Map(sorted.map((s, k) => [s, out[k].id]));
            return chunk.items.map((s) => byInput.get(s)!);
          } catch (error) {
            if ((error as { code?: string }).code !== '40P01') throw error;
            sqlDeadlocks++;
          }
        }
      }
      if (chunk.via === 'single') {
        const res = await fetch(`${chunk.service.url}/actions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(chunk.items[0]),
        });
        if (res.status !== 201) throw new Error(`POST /actions: ${res.status} ${await res.text()}`);
        return [((await res.json()) as { id: string }).id];
      }
      const res = await fetch(`${chunk.service.url}/actions/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ actions: chunk.items }),
      });
      if (res.status !== 201) {
        await sleep(500); // let the service's log of the error arrive
        throw new Error(`POST /actions/batch: ${res.status} ${await res.text()}\n${chunk.service.output().slice(-3000)}`);
      }
      return ((await res.json()) as { actions: { id: string }[] }).actions.map((a) => a.id);
    };

    // Four producers take chunks in turn while the workers drain the queue.
    const started = Date.now();
    let next = 0;
    await Promise.all(
      [0, 1, 2, 3].map(async (producer) => {
        while (next < chunks.length) {
          const index = next++;
          ids[index] = await send(chunks[index], producer);
          if (random() < 0.3) await sleep(Math.floor(random() * 30));
        }
      }),
    );
    const enqueuedMs = Date.now() - started;
    await Promise.all(sqlClients.map((c) => c.end()));

    // Each chunk kept its input order within each group (ties: input order is processing order).
    chunks.forEach((chunk, i) => {
      expect(ids[i]).toHaveLength(chunk.items.length);
      const lastInGroup = new Map<string, bigint>();
      chunk.items.forEach((s, k) => {
        const id = BigInt(ids[i][k]);
        expect(id > (lastInGroup.get(s.lockId) ?? 0n)).toBe(true);
        lastInGroup.set(s.lockId, id);
      });
    });
    const allIds = ids.flat();
    expect(new Set(allIds).size).toBe(ACTIONS);

    process.stdout.write(`concurrency: enqueued ${chunks.length} chunks in ${enqueuedMs} ms\n`);
    try {
      await waitFor(async () => (await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE status <> 'done'`)).rows[0].n === 0, 60_000, 250);
    } catch (error) {
      const { rows: state } = await pg.query(`
        SELECT status, is_head, count(*)::int AS n, count(DISTINCT lock_id)::int AS groups FROM actions
        WHERE status <> 'done' GROUP BY 1, 2`);
      throw new Error(`not drained: ${JSON.stringify(state)}\n${services.map((s) => s.output().slice(-1500)).join('\n')}`);
    }
    const drainedMs = Date.now() - started;

    const report = await checkTrace(pg, { expectDone: allIds });
    expect(report.actionCount).toBe(ACTIONS);
    expect(report.ok ? '' : formatTraceReport(report)).toBe('');
    expect(report.overlaps).toEqual([]);
    expect(report.orderViolations).toEqual([]);
    expect(report.lost).toEqual([]);
    expect(report.doneMoreThanOnce).toEqual([]);
    // Exactly one trace row per action: nothing failed, nothing ran twice.
    expect(report.attemptCount).toBe(ACTIONS);

    // The four tenants shared the queue (their turns in the claim were taken).
    const { rows: tenants } = await pg.query<{ tenant: string }>(`SELECT DISTINCT tenant FROM actions ORDER BY tenant`);
    expect(tenants.map((t) => t.tenant)).toEqual(['acme', 'default', 'globex', 'initech']);

    // Parallelism across processes: more than one worker id did work.
    const workers = Object.keys(report.doneByWorker);
    expect(workers.length).toBeGreaterThan(1);
    // ...and actions of different groups actually ran at the same time.
    const { rows } = await pg.query<{ n: number }>(`
      SELECT count(*)::int AS n FROM action_attempts x JOIN action_attempts y
        ON x.id < y.id AND x.lock_id <> y.lock_id AND x.worker_id <> y.worker_id
       AND x.started_at < y.finished_at AND y.started_at < x.finished_at
      WHERE x.id IN (SELECT id FROM action_attempts ORDER BY id LIMIT 500)`);
    expect(rows[0].n).toBeGreaterThan(0);

    // No instance ever ran more than WORKER_CONCURRENCY (8) attempts at once,
    // counting hand-offs and the claims made by finishing statements.
    const peak = Object.values(await peakRunningByWorker(pg));
    expect(peak.length).toBeGreaterThan(1);
    for (const p of peak) expect(p).toBeLessThanOrEqual(8);

    // Everyone stops cleanly.
    const codes = await Promise.all(services.map((s) => s.stop()));
    expect(codes).toEqual(services.map(() => 0));
    process.stdout.write(
      `concurrency: seed ${seed}, ${chunks.length} chunks enqueued in ${enqueuedMs} ms (${sqlDeadlocks} SQL deadlock retries), drained in ${drainedMs} ms, done by worker ${JSON.stringify(report.doneByWorker)}\n`,
    );
  }, 150_000);
});
