/**
 * The queue's metrics carry the product prefix `action_queue_` (Prometheus
 * naming: one prefix per exporter, units and `_total` in the name), so they
 * do not mix with an app's own `actions_*` series. Release 0.3 and earlier
 * named them `actions_*`; those names are served too, for one release, with
 * METRICS_LEGACY_NAMES=true.
 */
export const METRIC_PREFIX = 'action_queue_';

/**
 * Each metric renamed in release 0.4: its name now → its name up to 0.3.
 * Every one is the old name with `actions_` replaced by `action_queue_`,
 * except `action_queue_depth` (not `action_queue_queue_depth`).
 * The CHANGELOG (0.4.0) lists the same pairs; a unit test holds them to the metrics the registry has.
 */
export const LEGACY_METRIC_NAMES: ReadonlyMap<string, string> = new Map([
  ['action_queue_enqueued_total', 'actions_enqueued_total'],
  ['action_queue_depth', 'actions_queue_depth'],
  ['action_queue_pending_by_state', 'actions_pending_by_state'],
  ['action_queue_blocked_groups', 'actions_blocked_groups'],
  ['action_queue_paused', 'actions_paused'],
  ['action_queue_oldest_pending_age_seconds', 'actions_oldest_pending_age_seconds'],
  ['action_queue_worker_busy_slots', 'actions_worker_busy_slots'],
  ['action_queue_worker_slots', 'actions_worker_slots'],
  ['action_queue_worker_suspect_running', 'actions_worker_suspect_running'],
  ['action_queue_worker_suspect_running_seconds', 'actions_worker_suspect_running_seconds'],
  ['action_queue_stats_query_errors_total', 'actions_stats_query_errors_total'],
  ['action_queue_table_dead_tuples', 'actions_table_dead_tuples'],
  ['action_queue_table_live_tuples', 'actions_table_live_tuples'],
  ['action_queue_table_tuples_updated', 'actions_table_tuples_updated'],
  ['action_queue_table_tuples_hot_updated', 'actions_table_tuples_hot_updated'],
  ['action_queue_table_tuples_deleted', 'actions_table_tuples_deleted'],
  ['action_queue_mvcc_horizon_age_transactions', 'actions_mvcc_horizon_age_transactions'],
  ['action_queue_mvcc_horizon_age_seconds', 'actions_mvcc_horizon_age_seconds'],
  ['action_queue_dead_tuples_per_action', 'actions_dead_tuples_per_action'],
  ['action_queue_table_health_query_errors_total', 'actions_table_health_query_errors_total'],
  ['action_queue_claimed_total', 'actions_claimed_total'],
  ['action_queue_attempts_ended_total', 'actions_attempts_ended_total'],
  ['action_queue_fenced_completions_total', 'actions_fenced_completions_total'],
  ['action_queue_lease_expirations_total', 'actions_lease_expirations_total'],
  ['action_queue_handler_duration_seconds', 'actions_handler_duration_seconds'],
  ['action_queue_claim_statement_duration_seconds', 'actions_claim_statement_duration_seconds'],
  ['action_queue_heartbeat_failures_total', 'actions_heartbeat_failures_total'],
  ['action_queue_self_fenced_total', 'actions_self_fenced_total'],
  ['action_queue_stuck_handlers', 'actions_stuck_handlers'],
  ['action_queue_stray_errors_total', 'actions_stray_errors_total'],
  ['action_queue_chunk_size', 'actions_chunk_size'],
]);

/** Lifecycle events a listener missed because its backlog was full (src/events/), by `event`. New in 0.4: no old name. */
export const EVENTS_DROPPED_TOTAL = `${METRIC_PREFIX}events_dropped_total`;

/** Pending actions of a tenant (`tenant` label bounded: METRICS_TENANTS_TOP, the rest under {@link OTHER_TENANTS_LABEL}). New in 0.4. */
export const TENANT_BACKLOG = `${METRIC_PREFIX}tenant_backlog`;
/** Running actions of a tenant (same labels as {@link TENANT_BACKLOG}). New in 0.4. */
export const TENANT_RUNNING = `${METRIC_PREFIX}tenant_running`;
/** Seconds a tenant's oldest due head has waited (same labels as {@link TENANT_BACKLOG}). New in 0.4. */
export const TENANT_OLDEST_WAITING_AGE_SECONDS = `${METRIC_PREFIX}tenant_oldest_waiting_age_seconds`;

/**
 * The `tenant` label value under which the tenant gauges sum every tenant
 * after the top METRICS_TENANTS_TOP. It starts with `_`, which no tenant name
 * may (TENANT_PATTERN), so it can never be a real tenant's series.
 */
export const OTHER_TENANTS_LABEL = '_other';

/** Metrics added in 0.4, which have no old name to serve (METRICS_LEGACY_NAMES). */
export const METRICS_NEW_IN_0_4: ReadonlySet<string> = new Set([EVENTS_DROPPED_TOTAL, TENANT_BACKLOG, TENANT_RUNNING, TENANT_OLDEST_WAITING_AGE_SECONDS]);

/** Sample suffixes of histograms and summaries after their family's name. */
const SAMPLE_SUFFIXES = ['_bucket', '_sum', '_count'];

/**
 * A Prometheus text exposition with every renamed family served a second
 * time under its old name (METRICS_LEGACY_NAMES): the same samples and
 * labels, a HELP that names the new metric. The copies follow the original
 * text, each family's lines together, as the format requires; other
 * families (process, Node.js) are not copied.
 *
 * @param exposition the registry's text (prom-client `Registry.metrics()`).
 * @returns the text with the legacy families appended.
 */
export function withLegacyMetricNames(exposition: string): string {
  const copies: string[] = [];
  for (const line of exposition.split('\n')) {
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      const legacy = LEGACY_METRIC_NAMES.get(meta[2]);
      if (!legacy) continue;
      const text = meta[1] === 'HELP' ? `Old name of ${meta[2]} (METRICS_LEGACY_NAMES, removed in 0.5): ${meta[3]}` : meta[3];
      copies.push(`# ${meta[1]} ${legacy} ${text}`);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(.*)$/.exec(line);
    if (!sample) continue;
    const renamed = legacySampleName(sample[1]);
    if (renamed) copies.push(`${renamed}${sample[2]}`);
  }
  if (copies.length === 0) return exposition;
  return `${exposition.replace(/\n*$/, '\n')}${copies.join('\n')}\n`;
}

/** The old name of a sample of a renamed family (`…_bucket` of a histogram included), or undefined. */
function legacySampleName(name: string): string | undefined {
  const exact = LEGACY_METRIC_NAMES.get(name);
  if (exact) return exact;
  for (const suffix of SAMPLE_SUFFIXES) {
    if (!name.endsWith(suffix)) continue;
    const family = LEGACY_METRIC_NAMES.get(name.slice(0, -suffix.length));
    if (family) return family + suffix;
  }
  return undefined;
}
