import { useMemo } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { apiGet } from '../api';
import type { ActivityResource, ActionStatus, StatsResource } from '../api-types';
import { COLORS } from '../colors';
import { ErrorNotice } from '../components/error-notice';
import { LineChart, type Series } from '../components/line-chart';
import { formatCount, formatSeconds } from '../format';
import { usePoll } from '../use-poll';

/** How often the counts and the charts refresh (ms). */
const STATS_EVERY_MS = 2_000;
const ACTIVITY_EVERY_MS = 5_000;

const STATUSES: ActionStatus[] = ['pending', 'running', 'done', 'failed', 'cancelled'];

/** One figure on the overview. */
function Figure({ label, value, testId, note }: { label: string; value: string; testId: string; note?: string }) {
  return (
    <article class="figure">
      <h3>{label}</h3>
      <p class="figure-value" data-testid={testId}>
        {value}
      </p>
      {note && <small>{note}</small>}
    </article>
  );
}

/**
 * Overview: counts by status (estimates marked ≈), due versus scheduled,
 * blocked groups, oldest due age, and the last 15 minutes of throughput and
 * latency as charts. Counts refresh every 2 s, charts every 5 s.
 */
export function Overview() {
  const stats = usePoll((signal) => apiGet<StatsResource>('/stats', signal), STATS_EVERY_MS, []);
  const activity = usePoll((signal) => apiGet<ActivityResource>('/stats/activity?minutes=15', signal), ACTIVITY_EVERY_MS, []);
  const s = stats.data;

  const charts = useMemo(() => {
    const buckets = activity.data?.buckets ?? [];
    const x = (start: string) => Date.parse(start);
    const throughput: Series[] = [
      { label: 'done / s', color: COLORS.done, points: buckets.map((b) => ({ x: x(b.start), y: b.done / (activity.data?.bucketSeconds ?? 10) })) },
      { label: 'failed / s', color: COLORS.failed, points: buckets.map((b) => ({ x: x(b.start), y: b.failed / (activity.data?.bucketSeconds ?? 10) })) },
      {
        label: 'cancelled / s',
        color: COLORS.cancelled,
        points: buckets.map((b) => ({ x: x(b.start), y: b.cancelled / (activity.data?.bucketSeconds ?? 10) })),
      },
    ];
    const latency: Series[] = [
      { label: 'mean latency (ms)', color: COLORS.latency, dots: true, points: buckets.map((b) => ({ x: x(b.start), y: b.meanLatencyMs })) },
      { label: 'max latency (ms)', color: COLORS.latencyMax, dots: true, points: buckets.map((b) => ({ x: x(b.start), y: b.maxLatencyMs })) },
    ];
    const ended = buckets.reduce((n, b) => n + b.done + b.failed + b.cancelled, 0);
    const latest = [...buckets].reverse().find((b) => b.meanLatencyMs !== null);
    return { throughput, latency, ended, latest };
  }, [activity.data]);

  return (
    <section aria-labelledby="overview-title">
      <hgroup>
        <h2 id="overview-title">Overview</h2>
        <p aria-live="off">{stats.updatedAt ? `Updated ${stats.updatedAt.toLocaleTimeString('en-GB')}` : 'Loading…'}</p>
      </hgroup>
      <ErrorNotice error={stats.error} />
      {s && (
        <>
          <div class="figures" data-testid="status-counts">
            {STATUSES.map((status) => (
              <Figure
                key={status}
                label={status}
                testId={`count-${status}`}
                value={formatCount(s.byStatus[status], s.estimated.includes(status))}
                note={s.estimated.includes(status) ? 'estimate' : undefined}
              />
            ))}
          </div>
          <div class="figures">
            <Figure label="due, waiting" testId="count-due" value={formatCount(s.pendingBreakdown.due)} note="claimable now" />
            <Figure label="scheduled" testId="count-scheduled" value={formatCount(s.pendingBreakdown.scheduled)} note="runAt in the future" />
            <Figure label="paused" testId="count-paused" value={formatCount(s.pendingBreakdown.paused)} note="held by a pause" />
            <Figure label="rate limited" testId="count-rate-limited" value={formatCount(s.pendingBreakdown.waitingForRateLimit)} note="waiting for a token" />
            <Figure label="behind a head" testId="count-behind" value={formatCount(s.pendingBreakdown.behindHead)} note="waiting for their group" />
            <Figure label="oldest due" testId="oldest-due" value={formatSeconds(s.oldestPendingAgeSeconds)} note="claimable, since it became due" />
            <article class="figure">
              <h3>blocked groups</h3>
              <p class="figure-value" data-testid="count-blocked">
                {formatCount(s.blockedGroups)}
              </p>
              <small>
                <Link href="/groups">see blocked groups</Link>
              </small>
            </article>
          </div>
        </>
      )}
      <div class="grid charts">
        <article>
          <h3>Throughput, last 15 minutes</h3>
          <LineChart series={charts.throughput} yTitle="actions ended / s" label="Actions ended per second over the last 15 minutes, by final status" />
          <p data-testid="ended-15min">
            {activity.data ? `${formatCount(charts.ended)} actions ended in the last 15 minutes (counted up to about 5 s ago).` : 'Loading…'}
          </p>
        </article>
        <article>
          <h3>Enqueue-to-start latency</h3>
          <LineChart series={charts.latency} yTitle="ms" label="Mean and maximum enqueue-to-start latency over the last 15 minutes" />
          <p>
            {charts.latest
              ? `Latest 10 s with endings: mean ${formatSeconds(charts.latest.meanLatencyMs! / 1000)}, max ${formatSeconds(charts.latest.maxLatencyMs! / 1000)}, ` +
                'from when an action became due to its first start.'
              : 'No action that ran once has ended in the last 15 minutes.'}
          </p>
        </article>
      </div>
      <ErrorNotice error={activity.error} />
    </section>
  );
}
