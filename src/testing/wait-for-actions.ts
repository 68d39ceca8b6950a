import { sleep } from '../sleep';

/** Statuses after which an action never runs again. */
const FINAL_STATUSES = ['done', 'failed', 'cancelled'];

/**
 * Anything that reads an action by id: the in-process `ActionsService`, or an
 * `ActionQueueClient` of a service over HTTP.
 * @publicApi
 */
export interface ActionReader<A extends { id: string; status: string }> {
  get(id: string): Promise<A>;
}

/**
 * Options of {@link waitForActions}.
 * @publicApi
 */
export interface WaitForActionsOptions {
  /** Give up after this many ms. Default 30 000. */
  timeoutMs?: number;
  /** Read again every this many ms. Default 50. */
  intervalMs?: number;
}

/**
 * Waits until every action of `ids` has reached a final status (`done`,
 * `failed` or `cancelled`), reading them through `reader`, and returns them
 * in the order of `ids`. Use it to run actions through the real worker in a
 * test, then assert on their `status`, `result` or `lastError`.
 *
 * @example
 * ```ts
 * const { action } = await actions.enqueue({ type: 'invoice.send', lockId: 1, payload: { invoiceId: 7 } });
 * const [finished] = await waitForActions(actions, [action.id]);
 * expect(finished.status).toBe('done');
 * ```
 * @throws Error naming the actions still unfinished (and their statuses) when `timeoutMs` passes.
 * @publicApi
 */
export async function waitForActions<A extends { id: string; status: string }>(
  reader: ActionReader<A>,
  ids: readonly string[],
  options: WaitForActionsOptions = {},
): Promise<A[]> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const actions = await Promise.all(ids.map((id) => reader.get(id)));
    const open = actions.filter((a) => !FINAL_STATUSES.includes(a.status));
    if (open.length === 0) return actions;
    if (Date.now() > deadline) {
      throw new Error(`actions not finished within ${options.timeoutMs ?? 30_000} ms: ${open.map((a) => `${a.id} (${a.status})`).join(', ')}`);
    }
    await sleep(options.intervalMs ?? 50);
  }
}
