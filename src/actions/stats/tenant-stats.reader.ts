import { TENANT_STATS_SQL } from '../sql/tenant-stats.sql';
import type { RunQuery } from './queue-stats.reader';

/**
 * One tenant's live work (docs/tenants.md, "Watching tenants").
 * @publicApi
 */
export interface TenantStats {
  /** The tenant's name (`default` for actions enqueued without one). */
  tenant: string;
  /** Its pending actions: due, scheduled, paused and behind their group's head alike. */
  backlog: number;
  /** Its running actions. */
  running: number;
  /** Seconds since its oldest due pending head became due (paused or rate-limited heads included); null when it has none. */
  oldestWaitingAgeSeconds: number | null;
  /** Its weight (action_tenant_settings; 1 without a row). */
  weight: number;
  /** The most of its actions that may run at once; null: no cap. */
  maxRunning: number | null;
}

/**
 * The tenants after the top ones, summed.
 * @publicApi
 */
export interface OtherTenantsStats {
  /** How many tenants with live work are not in the top list (0: none). */
  tenants: number;
  /** Their pending actions, summed. */
  backlog: number;
  /** Their running actions, summed. */
  running: number;
  /** The largest of their oldest-waiting ages (s); null when none of them has a due head. */
  oldestWaitingAgeSeconds: number | null;
}

/**
 * Live work per tenant, bounded: the first `top` tenants by backlog, the rest summed.
 * @publicApi
 */
export interface TenantsStats {
  /** Tenants with the largest backlog first (ties: more running first, then by name); at most the asked-for number. */
  top: TenantStats[];
  /** Every other tenant with pending or running work, summed. */
  others: OtherTenantsStats;
}

interface TenantStatsRow {
  tenant: string | null;
  others: boolean;
  tenants: number;
  backlog: number;
  running: number;
  oldest_waiting_s: number | null;
  weight: number | null;
  max_running: number | null;
}

/**
 * Reads the live work of each tenant in one statement over the pending,
 * running and claim indexes (src/actions/sql/tenant-stats.sql.ts): its cost
 * grows with the live queue, never with the finished history. Only tenants
 * with a pending or running action are listed; `top` bounds the list (the
 * rest is summed in `others`), so 100 000 tenants make one row each only
 * inside the database, never in the answer.
 *
 * @param run executes SQL (a DataSource's or a pool's query).
 * @param top how many tenants to list by name (>= 0).
 * @throws whatever `run` throws (database unreachable, timeout).
 */
export async function readTenantStats(run: RunQuery, top: number): Promise<TenantsStats> {
  const rows = (await run(TENANT_STATS_SQL, [top])) as unknown as TenantStatsRow[];
  const age = (seconds: number | null): number | null => (seconds === null ? null : Math.max(0, seconds));
  const listed = rows
    .filter((row) => !row.others)
    .map((row): TenantStats => ({
      tenant: row.tenant as string,
      backlog: row.backlog,
      running: row.running,
      oldestWaitingAgeSeconds: age(row.oldest_waiting_s),
      weight: row.weight ?? 1,
      maxRunning: row.max_running,
    }))
    .sort((a, b) => b.backlog - a.backlog || b.running - a.running || (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : 0));
  const rest = rows.find((row) => row.others);
  return {
    top: listed,
    others: {
      tenants: rest?.tenants ?? 0,
      backlog: rest?.backlog ?? 0,
      running: rest?.running ?? 0,
      oldestWaitingAgeSeconds: age(rest?.oldest_waiting_s ?? null),
    },
  };
}
