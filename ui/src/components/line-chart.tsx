import { Chart, Filler, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';
import { formatClock } from '../format';

Chart.register(LineController, LineElement, PointElement, LinearScale, Legend, Tooltip, Filler);

/** One line: points of (epoch ms, value); a null value leaves a gap. */
export interface Series {
  label: string;
  color: string;
  points: { x: number; y: number | null }[];
  /** Draw each point (for sparse series, where a lone value would not show as a line). */
  dots?: boolean;
}

/** Props of {@link LineChart}. */
export interface LineChartProps {
  series: Series[];
  /** Title of the y axis, with its unit. */
  yTitle: string;
  /** What the chart shows, for screen readers (the page also states it in text). */
  label: string;
}

/**
 * A time-series line chart (Chart.js) over epoch-millisecond x values. The
 * chart is made once and updated in place without animation when `series`
 * changes, so live refreshes do not flicker.
 */
export function LineChart({ series, yTitle, label }: LineChartProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart<'line', { x: number; y: number | null }[]>>();

  useEffect(() => {
    chart.current = new Chart(canvas.current!, {
      type: 'line',
      data: { datasets: [] },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        scales: {
          x: { type: 'linear', ticks: { callback: (value) => formatClock(Number(value)), maxTicksLimit: 6 } },
          y: { beginAtZero: true, title: { display: true, text: yTitle } },
        },
        plugins: {
          legend: { position: 'bottom' },
          tooltip: { callbacks: { title: (items) => (items.length > 0 ? formatClock(items[0].parsed.x ?? 0) : '') } },
        },
      },
    });
    return () => chart.current?.destroy();
  }, [yTitle]);

  useEffect(() => {
    const c = chart.current;
    if (!c) return;
    c.data.datasets = series.map((s) => ({
      label: s.label,
      data: s.points,
      borderColor: s.color,
      backgroundColor: s.color,
      borderWidth: 2,
      pointRadius: s.dots ? 2.5 : 0,
      spanGaps: false,
    }));
    // The axis spans the data exactly (Chart.js would round it out to "nice" values).
    const xs = series.flatMap((s) => s.points.map((p) => p.x));
    c.options.scales!.x!.min = xs.length > 0 ? Math.min(...xs) : undefined;
    c.options.scales!.x!.max = xs.length > 0 ? Math.max(...xs) : undefined;
    c.update('none');
  }, [series]);

  return (
    <div class="chart">
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}
