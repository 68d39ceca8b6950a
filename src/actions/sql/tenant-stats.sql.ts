/*
 * The per-tenant figures of `GET /stats` (`tenants`) and the `/metrics`
 * tenant gauges, read in a time that does not grow with the finished history
 * (README, "Admin reads"): every row it reads is live work. The pending and
 * running counts walk actions_pending_idx / actions_running_idx (one entry
 * per pending or running action) and read each row's tenant from the heap;
 * the oldest due head of each tenant walks the two claim indexes over the
 * due heads only. So its cost is that of the live queue, as the pending
 * count of QUEUE_STATS_SQL is, and nothing here touches a finished row.
 */

/**
 * One row per tenant among the first `$1::int` by backlog (pending actions,
 * then running, then name, so that ties keep a stable order), and one last
 * row, `others = true`, summing every tenant after them (`tenants` says how
 * many; zero when none). A tenant is listed while it has a pending or a
 * running action.
 *
 * - backlog: the tenant's pending actions (heads, scheduled, paused, behind
 *   their head: every pending one, as byStatus.pending counts them).
 * - running: its running actions.
 * - oldest_waiting_s: seconds since its oldest due pending head became due,
 *   now() - greatest(run_at, created_at) (the measure of
 *   oldestPendingAgeSeconds, per tenant; a head held back by a pause or a
 *   rate limit counts here: the tenant waits all the same). Null when the
 *   tenant has no due head. For the others row, the largest of theirs.
 * - weight, max_running: the tenant's row of action_tenant_settings (weight 1
 *   and no cap without one); null on the others row.
 */
export const TENANT_STATS_SQL = `
WITH backlog AS (
  SELECT tenant, count(*)::int AS n FROM actions WHERE status = 'pending' GROUP BY tenant
), running AS (
  SELECT tenant, count(*)::int AS n FROM actions WHERE status = 'running' GROUP BY tenant
), waiting AS (
  SELECT h.tenant, min(h.due_since) AS due_since FROM (
    SELECT tenant, greatest(run_at, created_at) AS due_since FROM actions
    WHERE is_head AND status = 'pending' AND NOT quarantined AND run_at <= now()
    UNION ALL
    SELECT tenant, greatest(run_at, created_at) FROM actions
    WHERE is_head AND status = 'pending' AND quarantined AND run_at <= now()
  ) AS h GROUP BY h.tenant
), ranked AS (
  SELECT t.tenant, t.backlog, t.running,
         extract(epoch FROM now() - w.due_since)::float8 AS oldest_waiting_s,
         row_number() OVER (ORDER BY t.backlog DESC, t.running DESC, t.tenant) AS rank
  FROM (SELECT coalesce(b.tenant, r.tenant) AS tenant, coalesce(b.n, 0) AS backlog, coalesce(r.n, 0) AS running
        FROM backlog AS b FULL JOIN running AS r ON r.tenant = b.tenant) AS t
  LEFT JOIN waiting AS w ON w.tenant = t.tenant
)
(SELECT r.tenant, false AS others, 1 AS tenants, r.backlog, r.running, r.oldest_waiting_s,
        coalesce(s.weight, 1)::float8 AS weight, s.max_running
 FROM ranked AS r LEFT JOIN action_tenant_settings AS s ON s.tenant = r.tenant
 WHERE r.rank <= $1::int ORDER BY r.rank)
UNION ALL
SELECT NULL, true, count(*)::int, coalesce(sum(backlog), 0)::int, coalesce(sum(running), 0)::int, max(oldest_waiting_s), NULL, NULL
FROM ranked WHERE rank > $1::int`;
