import { checkTrace, connect, formatTraceReport, OwnPostgres, sleep, startOwnPostgres, startServiceProcess, VALID_LEASE_OUTCOMES, waitFor } from '../support';

const LEASE_MS = 3_000;
/** How long the database stays down: longer than a lease, so running leases are lost meanwhile. */
const DOWN_MS = LEASE_MS + 1_000;

/**
 * docs/guarantees.md's first guarantee, "accepted means kept", across a real PostgreSQL
 * stop and start: a cluster of the test's own (never the shared server) is
 * stopped (fast shutdown: every connection cut) with accepted work running and
 * waiting, kept down longer than a lease, and started again. The same service
 * process, never restarted, finishes every accepted action, in group order,
 * each done once; while the database is away it answers 503, not 500.
 *
 * Seen to fail against a deliberately broken build: the claim loop stopping
 * for good on its first error (WorkerService's catch pausing claims forever
 * instead of retrying), which leaves the accepted actions pending.
 */
describe('a PostgreSQL restart with accepted work in flight', () => {
  let pg: OwnPostgres | undefined;

  afterAll(async () => {
    await pg?.destroy();
  });

  it('keeps every accepted action and finishes them in order after the server comes back', async () => {
    pg = await startOwnPostgres();
    const svc = await startServiceProcess(pg.url(), { LEASE_MS: String(LEASE_MS), REAPER_INTERVAL_MS: '200', WORKER_CONCURRENCY: '8' }, 60_000);
    try {
      // 6 groups x 4 actions of 0.6-1.2 s, accepted through the API.
      const actions = Array.from({ length: 24 }, (_, i) => ({
        type: 'instance.update',
        lockId: String(100 + (i % 6)),
        payload: { durationMs: 600 + (i % 4) * 200 },
      }));
      const res = await fetch(`${svc.url}/actions/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ actions }),
      });
      expect(res.status).toBe(201);
      const accepted = ((await res.json()) as { actions: { id: string }[] }).actions.map((a) => a.id);
      expect(accepted).toHaveLength(24);

      const c = await connect(pg.url());
      await waitFor(async () => (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE status = 'running'`)).rows[0].n >= 6, 15_000);
      await c.end().catch(() => undefined);

      await pg.stop();
      const downAt = Date.now();
      // Away: the API says so with 503 (nothing written), never 500.
      const during = await fetch(`${svc.url}/actions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'instance.create', lockId: '999' }),
        signal: AbortSignal.timeout(20_000),
      });
      expect(during.status).toBe(503);
      await sleep(Math.max(0, DOWN_MS - (Date.now() - downAt))); // the outage's length, not a synchronisation
      await pg.start();
      const upAt = Date.now();

      const d = await connect(pg.url());
      try {
        await waitFor(
          async () =>
            (await d.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE id = ANY($1) AND status = 'done'`, [accepted])).rows[0].n === 24,
          60_000,
          200,
        );
        console.log(`postgres restart: down ${upAt - downAt} ms; all 24 accepted actions done ${Date.now() - upAt} ms after it came back`);
        expect(svc.child.exitCode).toBeNull(); // the same process recovered by itself
        const report = await checkTrace(d, { expectDone: accepted, overlapOutcomes: VALID_LEASE_OUTCOMES });
        expect(report.ok ? 'ok' : formatTraceReport(report)).toBe('ok');
        const { rows } = await d.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions`);
        expect(rows[0].n).toBe(24); // and the refused request wrote nothing
      } finally {
        await d.end();
      }
    } finally {
      await svc.stop();
    }
  });
});
