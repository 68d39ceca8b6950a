/** Formatting shared by the pages. */
import { stringifyJson } from '../../src/http/json-text';

const numberFormat = new Intl.NumberFormat('en');

/** 1234567 → "1,234,567"; an estimate gets "≈". */
export function formatCount(n: number, estimated = false): string {
  return `${estimated ? '≈' : ''}${numberFormat.format(n)}`;
}

/** Seconds → "850 ms", "12.3 s", "4 min 5 s", "2 h 3 min". */
export function formatSeconds(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '–';
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${Math.floor(seconds % 60)} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

/** Milliseconds between two ISO instants, formatted; "–" when one is missing. */
export function formatSpan(from: string | null, to: string | null): string {
  if (!from || !to) return '–';
  return formatSeconds((Date.parse(to) - Date.parse(from)) / 1000);
}

/** ISO instant → local "2025-01-01 12:00:01.234" (milliseconds matter for order). */
export function formatInstant(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** Epoch ms → local "12:00:05" for chart axes ("12:00:05.250" with `millis`). */
export function formatClock(ms: number, millis = false): string {
  const text = new Date(ms).toLocaleTimeString('en-GB', { hour12: false });
  return millis ? `${text}.${String(new Date(ms).getMilliseconds()).padStart(3, '0')}` : text;
}

/**
 * Any JSON value, indented, for <pre>. A value nested deeper than
 * JSON.stringify can recurse (a payload stored by SQL) is shown compact,
 * written without recursion, rather than breaking the page.
 */
export function formatJson(value: unknown): string {
  if (value === undefined) return '';
  try {
    return JSON.stringify(value, null, 2);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return stringifyJson(value) ?? '';
  }
}

/**
 * What an action's attempts came to, for a list cell: "1 run" once it ended
 * done or cancelled (its budget no longer matters: a success is not charged,
 * so "0/5 used" read as if it never ran), else the runs and the budget used
 * so far ("2 runs, budget 1/5 used": releases are free, a retry grants a new budget).
 */
export function formatRuns(a: { status: string; attempts: number; chargedAttempts: number; maxAttempts: number }): string {
  const runs = `${a.attempts} ${a.attempts === 1 ? 'run' : 'runs'}`;
  if (a.status === 'done' || a.status === 'cancelled') return runs;
  return `${runs}, budget ${a.chargedAttempts}/${a.maxAttempts} used`;
}
