import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';
import type { TimelineActionResource } from '../api-types';
import { COLORS } from '../colors';
import { formatClock, formatSeconds } from '../format';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

/** One bar: an interval on an action's row. */
interface Segment {
  x: [number, number];
  y: string;
  note: string;
}

/** What a bar shows: waiting from due to first start, an ended attempt by outcome, or the running attempt. */
const KINDS = ['waiting', 'done', 'error', 'timeout', 'lease_expired', 'released', 'cancelled', 'running'] as const;
type Kind = (typeof KINDS)[number];

const LABELS: Record<Kind, string> = {
  waiting: 'waiting (due → first start)',
  done: 'attempt: done',
  error: 'attempt: error (retried or failed)',
  timeout: 'attempt: timeout',
  lease_expired: 'attempt: lease expired',
  released: 'attempt: released',
  cancelled: 'attempt: cancelled',
  running: 'attempt: running now',
};

/** The row label of an action. */
export const rowLabel = (a: TimelineActionResource): string => `#${a.id} ${a.type}`;

function segments(actions: TimelineActionResource[], now: number): Record<Kind, Segment[]> {
  const out = Object.fromEntries(KINDS.map((k) => [k, [] as Segment[]])) as Record<Kind, Segment[]>;
  for (const a of actions) {
    const y = rowLabel(a);
    const firstStart = a.startedAt ? Date.parse(a.startedAt) : a.status === 'pending' ? now : null;
    // A retry moves runAt past the first start; the action was then due from its enqueue.
    const runAt = Date.parse(a.runAt);
    const due = firstStart !== null && runAt > firstStart ? Date.parse(a.createdAt) : Math.max(Date.parse(a.createdAt), runAt);
    if (firstStart !== null && firstStart > due) {
      out.waiting.push({ x: [due, firstStart], y, note: `waited ${formatSeconds((firstStart - due) / 1000)}` });
    }
    for (const t of a.trace) {
      const kind = (KINDS as readonly string[]).includes(t.outcome) ? (t.outcome as Kind) : 'error';
      const span = formatSeconds((Date.parse(t.finishedAt) - Date.parse(t.startedAt)) / 1000);
      out[kind].push({
        x: [Date.parse(t.startedAt), Date.parse(t.finishedAt)],
        y,
        note: `attempt ${t.attempt}${t.chunkOf ? ` in the chunk from #${t.chunkOf}` : ''}, ${span}${t.error ? `: ${t.error}` : ''}`,
      });
    }
    if (a.current) {
      out.running.push({ x: [Date.parse(a.current.startedAt), now], y, note: `attempt ${a.current.attempt} on ${a.current.workerId}` });
    }
  }
  return out;
}

/**
 * A Gantt-style timeline of a group's actions (Chart.js floating bars): one
 * row per action in id order, one bar per attempt coloured by outcome, so the
 * one-at-a-time order, retries, lease expiries and releases show at a glance.
 * The page lists the same data in a table for keyboard and screen readers.
 */
export function TimelineChart({ actions }: { actions: TimelineActionResource[] }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart<'bar', Segment[], string>>();
  // Milliseconds on the axis when the whole timeline spans a few seconds.
  const precise = useRef(false);

  useEffect(() => {
    chart.current = new Chart<'bar', Segment[], string>(canvas.current!, {
      type: 'bar',
      data: { labels: [], datasets: [] },
      options: {
        indexAxis: 'y',
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: { type: 'linear', ticks: { callback: (value) => formatClock(Number(value), precise.current), maxTicksLimit: 6 } },
          y: { type: 'category' },
        },
        plugins: {
          legend: { position: 'bottom', labels: { boxWidth: 12 } },
          tooltip: { callbacks: { label: (item) => `${item.dataset.label}: ${(item.raw as Segment).note}` } },
        },
      },
    });
    return () => chart.current?.destroy();
  }, []);

  useEffect(() => {
    const c = chart.current;
    if (!c) return;
    const bars = segments(actions, Date.now());
    const edges = KINDS.flatMap((k) => bars[k].flatMap((b) => b.x));
    const [min, max] = edges.length > 0 ? [Math.min(...edges), Math.max(...edges)] : [Date.now() - 60_000, Date.now()];
    const pad = Math.max(50, (max - min) * 0.02);
    c.options.scales!.x!.min = min - pad;
    c.options.scales!.x!.max = max + pad;
    precise.current = max - min < 10_000;
    c.data.labels = actions.map(rowLabel);
    c.data.datasets = KINDS.filter((k) => bars[k].length > 0).map((k) => ({
      label: LABELS[k],
      data: bars[k],
      backgroundColor: COLORS[k],
      borderColor: COLORS[k],
      grouped: false,
      barPercentage: 0.7,
      categoryPercentage: 1,
      minBarLength: 2,
    }));
    c.update('none');
  }, [actions]);

  return (
    <div class="chart timeline" style={{ height: `${Math.max(180, actions.length * 24 + 90)}px` }}>
      <canvas ref={canvas} role="img" aria-label="Timeline of the group's actions: one row per action in id order, one bar per attempt" />
    </div>
  );
}
