import { waitFor, withTestApp } from '../support';

/**
 * The retry back-off, end to end: a failed attempt's retry waits a full-jitter
 * delay, uniform in [0, min(RETRY_BACKOFF_CAP_MS, BASE * 2^(n-1))] ms
 * (src/queue/attempt/backoff.ts). One delay may be 0, so the lower bound is on the
 * mean of many: N actions fail twice, and the gaps between an attempt's end
 * and the next one's start (database clock, from the trace) must average
 * about half of each ceiling, the second ceiling twice the first.
 *
 * Seen to fail against deliberately broken builds: backoff returning 0 (the
 * retry at once, `run_at = now()`: the means fall under their lower bounds)
 * and backoff ignoring the cap (`baseMs * 4`: the gaps exceed their upper bound).
 */
const N = 24;
const BASE_MS = 800;
const CAP_MS = 1_600;
const POLL_MS = 200;

describe('retry back-off end to end', () => {
  const t = withTestApp('backoff', {
    env: {
      WORKER_CONCURRENCY: String(N),
      RETRY_BACKOFF_BASE_MS: String(BASE_MS),
      RETRY_BACKOFF_CAP_MS: String(CAP_MS),
      WORKER_POLL_INTERVAL_MS: String(POLL_MS),
    },
  });

  it('waits a jittered delay under the ceiling before each retry, about half the ceiling on average, doubling per retry', async () => {
    const { rows } = await t.pg.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload, max_attempts)
       SELECT 880000 + g, 'instance.update', '{"failAttempts": 2, "durationMs": 0}', 5 FROM generate_series(1, $1::int) g RETURNING id::text`,
      [N],
    );
    const ids = rows.map((r) => r.id);
    await waitFor(
      async () => (await t.pg.query(`SELECT count(*)::int AS n FROM actions WHERE id = ANY($1) AND status = 'done'`, [ids])).rows[0].n === N,
      30_000,
    );

    // Gap before retry r (1, 2): start of attempt r+1 minus end of attempt r, in ms of the database clock.
    const { rows: gaps } = await t.pg.query<{ retry: number; gap_ms: number }>(
      `SELECT a.attempt AS retry, extract(epoch FROM b.started_at - a.finished_at) * 1000 AS gap_ms
       FROM action_attempts a JOIN action_attempts b ON b.action_id = a.action_id AND b.attempt = a.attempt + 1
       WHERE a.action_id = ANY($1) ORDER BY a.attempt, a.action_id`,
      [ids],
    );
    const of = (retry: number) => gaps.filter((g) => g.retry === retry).map((g) => Number(g.gap_ms));
    const [first, second] = [of(1), of(2)];
    expect([first.length, second.length]).toEqual([N, N]);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    console.log(
      `back-off: mean gap before retry 1 ${mean(first).toFixed(0)} ms (ceiling ${BASE_MS}), before retry 2 ${mean(second).toFixed(0)} ms (ceiling ${CAP_MS}); ` +
        `max ${Math.max(...first).toFixed(0)} / ${Math.max(...second).toFixed(0)} ms`,
    );

    // Upper: no retry before its run_at is bounded by the ceiling, plus the poll and a loaded machine's delay.
    const slack = POLL_MS + 600;
    expect(Math.max(...first)).toBeLessThan(BASE_MS + slack);
    expect(Math.max(...second)).toBeLessThan(CAP_MS + slack);
    // Lower: uniform in [0, ceiling] has mean ceiling/2 and, over N = 24, a standard
    // deviation of the mean of ceiling/sqrt(12 N) (about 5.9 % of the ceiling): ceiling/4
    // is over 4 of them below. A retry at once averages under the poll interval.
    expect(mean(first)).toBeGreaterThan(BASE_MS / 4);
    expect(mean(second)).toBeGreaterThan(CAP_MS / 4);
    // And the ceiling grows: the second retry waits longer on average than the first.
    expect(mean(second)).toBeGreaterThan(mean(first));
  });
});
