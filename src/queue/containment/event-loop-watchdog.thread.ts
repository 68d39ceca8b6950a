import { writeSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import type { Client } from 'pg';
import { dedicatedClient } from '../../database/dedicated-connection';
import { pinSearchPath } from '../../database/queue-schema';
import { monotonicNow } from '../instance/monotonic-clock';
import { RELEASE_WORKER_SQL } from '../sql/lost-attempts.sql';
import { WatchdogConfig, WatchdogSharedState } from './watchdog-shared-state';

/**
 * The event-loop watchdog's thread (see EventLoopWatchdog). It runs outside
 * the main event loop, so it keeps running when a handler blocks that loop.
 * When the loop has stalled and a held lease comes within `fenceBeforeMs` of
 * its deadline, it fences the instance: it ends this worker's running
 * attempts in the database (the handler whose synchronous code is running, if
 * known, is charged; the others are released, uncharged, claimable after
 * `releaseDelayMs`), logs why, and kills the process with SIGKILL, before any
 * of its leases can expire elsewhere.
 */
/**
 * Longest wait for the watchdog's connection to be made (ms). It is made
 * ahead of need, on any check without a stall, and a failed try is retried at
 * the next such check, so this bounds only how long one try may hang.
 */
const CONNECT_TIMEOUT_MS = 5_000;
const config = workerData as WatchdogConfig;
const state = WatchdogSharedState.attach(config.state);
let client: Client | null = null;
let fencing = false;

/** One JSON log line on stderr (pino's shape: level 50 = error), written synchronously. */
function log(msg: string, extra: Record<string, unknown> = {}): void {
  writeSync(2, `${JSON.stringify({ level: 50, time: Date.now(), pid: process.pid, context: 'EventLoopWatchdog', msg, ...extra })}\n`);
}

/** Keeps one connection open, so fencing needs no connect when it matters. */
async function connect(): Promise<void> {
  if (client || fencing) return;
  const c = dedicatedClient(config.databaseUrl, 'watchdog', CONNECT_TIMEOUT_MS);
  c.on('error', () => {
    if (client === c) client = null;
  });
  try {
    await c.connect();
    await pinSearchPath(c, config.placement);
    client = c;
  } catch {
    // Retried at the next check.
  }
}

async function fence(stalledMs: number): Promise<void> {
  fencing = true;
  const culprit = state.syncHandlerActionId;
  const reason = culprit
    ? `the handler blocked the event loop for ${Math.round(stalledMs)} ms; the instance was stopped before its leases could expire`
    : `instance fenced: its event loop stalled for ${Math.round(stalledMs)} ms`;
  log(`Event loop stalled for ${Math.round(stalledMs)} ms with leases about to expire: releasing this worker's actions and killing the process`, {
    workerId: config.workerId,
    culpritActionId: culprit,
  });
  try {
    if (client) {
      const release = client.query(RELEASE_WORKER_SQL, [config.workerId, culprit, reason, config.releaseDelayMs]);
      const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('release timed out')), config.releaseTimeoutMs));
      const { rows } = (await Promise.race([release, timeout])) as { rows: unknown[] };
      log(`Released ${rows.length} running attempt(s) before stopping`, { attempts: rows });
    }
  } catch (error) {
    log(`Could not release the running attempts (their leases will expire): ${(error as Error).message}`);
  } finally {
    process.kill(process.pid, 'SIGKILL');
  }
}

setInterval(() => {
  if (fencing) return;
  const now = monotonicNow();
  const stalledMs = now - state.lastTick;
  if (stalledMs >= config.stallMs && now >= state.earliestDeadline - config.fenceBeforeMs) {
    void fence(stalledMs);
  } else if (!client) {
    void connect();
  }
}, config.checkEveryMs);
