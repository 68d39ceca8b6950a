import type { QueueSettings } from '../../config/settings';

/** DI token of the instance's {@link WakeUpPlan}. */
export const WAKE_UP_PLAN = Symbol('actions:wake-up-plan');

/**
 * Claim poll (ms) of an instance behind a transaction pooler with no direct
 * connection to LISTEN on: short enough that an SQL insert starts within a
 * fraction of a second, long enough that an idle instance sends only four
 * index probes (the claim statement) a second.
 */
export const POOLED_POLL_INTERVAL_MS = 250;

/** How an instance's workers learn that work became claimable. */
export interface WakeUpPlan {
  /** URL of the LISTEN connection; null: no LISTEN (behind a transaction pooler, none given). */
  listenUrl: string | null;
  /** Extra claim poll (ms) standing in for LISTEN; null when LISTEN works. */
  shortPollMs: number | null;
  /** Start-up warning to log, or null. */
  warning: string | null;
}

/**
 * Decides where the workers LISTEN. LISTEN is session state: through a
 * transaction pooler (DATABASE_POOLER=transaction) it lands on a server
 * connection the client gives back after the statement, so notifications
 * never arrive and wake-up falls back to the WORKER_POLL_INTERVAL_MS safety
 * net. LISTEN_DATABASE_URL (a direct connection) keeps wake-up in
 * milliseconds; without it, a short poll ({@link POOLED_POLL_INTERVAL_MS})
 * stands in, with a warning.
 *
 * @param settings DATABASE_POOLER, LISTEN_DATABASE_URL, WORKER_POLL_INTERVAL_MS.
 * @param databaseUrl the queue's URL (DATABASE_URL, or the embedded server's).
 */
export function planWakeUp(
  settings: Pick<QueueSettings, 'DATABASE_POOLER' | 'LISTEN_DATABASE_URL' | 'WORKER_POLL_INTERVAL_MS'>,
  databaseUrl: string,
): WakeUpPlan {
  if (settings.LISTEN_DATABASE_URL) return { listenUrl: settings.LISTEN_DATABASE_URL, shortPollMs: null, warning: null };
  if (settings.DATABASE_POOLER !== 'transaction') return { listenUrl: databaseUrl, shortPollMs: null, warning: null };
  const shortPollMs = Math.min(POOLED_POLL_INTERVAL_MS, settings.WORKER_POLL_INTERVAL_MS);
  return {
    listenUrl: null,
    shortPollMs,
    warning:
      `DATABASE_POOLER=transaction and no LISTEN_DATABASE_URL: LISTEN cannot work through a transaction pooler, ` +
      `so workers poll every ${shortPollMs} ms instead of waking at once. Set LISTEN_DATABASE_URL to a direct ` +
      `(not pooled) URL of the same database for wake-up in milliseconds (docs/operations.md, "Behind a pooler").`,
  };
}
