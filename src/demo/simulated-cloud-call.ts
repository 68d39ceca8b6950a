import { ActionContext, QueuedAction } from '../handlers';
import { sleep } from '../sleep';

/** Default simulated duration of a demo action (ms). */
export const DEMO_DEFAULT_DURATION_MS = 50;

/**
 * Simulates a cloud API call for the demo handlers: waits `payload.durationMs`
 * (default 50 ms; 0 returns at once) and fails the first `payload.failAttempts`
 * attempts (default 0). Stops early with the abort reason when the signal fires.
 *
 * @returns `{ instanceId, operation, attempt }`.
 * @throws Error `simulated failure` on a failing attempt; the abort reason when aborted.
 */
export async function simulateCloudCall(operation: string, action: QueuedAction, ctx: ActionContext): Promise<Record<string, unknown>> {
  const durationMs = nonNegativeNumber(action.payload.durationMs, DEMO_DEFAULT_DURATION_MS);
  const failAttempts = nonNegativeNumber(action.payload.failAttempts, 0);
  if (durationMs > 0) await sleep(durationMs, ctx.signal);
  ctx.signal.throwIfAborted();
  if (ctx.attempt <= failAttempts) {
    throw new Error(`simulated failure of ${operation} (attempt ${ctx.attempt} of ${failAttempts} failing)`);
  }
  return { instanceId: action.payload.instanceId ?? null, operation, attempt: ctx.attempt };
}

function nonNegativeNumber(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}
