import createClient from 'openapi-fetch';
import { ActionQueueHttpError, ActionQueueNetworkError } from './action-queue-client.errors';
import type { components, operations, paths } from './generated/openapi';

/**
 * An action as the service returns it. 64-bit ids (`id`, `lockId`, `retryOf`)
 * are decimal strings; times are ISO 8601 strings in UTC.
 * @publicApi
 */
export type Action = components['schemas']['ActionResponseDto'];
/**
 * What cancel and retry answer: the action, with `contentOmitted` true when its
 * payload, result and lastError together are over the service's
 * MAX_RESPONSE_BYTES (the command took effect; `payload` is `{}`, `result`
 * and `lastError` are null).
 * @publicApi
 */
export type ActionCommandResult = components['schemas']['ActionCommandResponseDto'];
/**
 * An action with its trace: one entry per ended attempt. With `contentOmitted`
 * (asked by `content: false`), its payload, result, lastError and the trace's
 * errors are left out, and `contentBytes` gives their sizes.
 * @publicApi
 */
export type ActionWithTrace = components['schemas']['ActionWithTraceResponseDto'];
/**
 * What to enqueue: `type` (a handler must exist for it), and optionally
 * `lockId` (decimal string or safe integer; actions of one lock id run one at
 * a time, in order) or `groupKey` (a string naming the group instead: 1..255
 * bytes of UTF-8; the service gives each distinct key a group of its own), `payload`, `runAt` (ISO 8601 with `Z` or an offset),
 * `maxAttempts`, `onFailure` and `idempotencyKey`.
 * @publicApi
 */
export type NewAction = components['schemas']['CreateActionDto'];
/**
 * A page of {@link ActionQueueClient.list}: `nextCursor` is the `after` of the next page, null on the last.
 * An item whose content can never fit the service's MAX_RESPONSE_BYTES is listed without it (`contentOmitted`).
 * @publicApi
 */
export type ActionsPage = components['schemas']['ActionsPageResponseDto'];
/**
 * A group's state: its head, whether it runs, how many wait, and whether (and why) it is blocked.
 * @publicApi
 */
export type ActionGroup = components['schemas']['GroupResponseDto'];
/**
 * Queue-wide counts by status, the oldest pending age (s) and the blocked groups.
 * @publicApi
 */
export type QueueStats = components['schemas']['StatsResponseDto'];
/**
 * Filters and page of {@link ActionQueueClient.list}.
 * @publicApi
 */
export type ListActionsParams = NonNullable<operations['ActionsController_list']['parameters']['query']>;

/**
 * Options of {@link ActionQueueClient}.
 * @publicApi
 */
export interface ActionQueueClientOptions {
  /** Base URL of the service, e.g. `http://queue.internal:3000` (with the path prefix, if any). */
  baseUrl: string;
  /** The service's API_KEY, sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** Give up on one try after this many ms (then it counts as a network error). Default 30 000. */
  timeoutMs?: number;
  /** Further tries of a request that is safe to repeat (see {@link ActionQueueClient}). Default 3. */
  retries?: number;
  /** Delay before the first further try (ms); doubled each time, with full jitter. Default 200. */
  retryDelayMs?: number;
  /** Longest delay between two tries (ms). Default 5 000. */
  maxRetryDelayMs?: number;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /** The fetch implementation. Default the global `fetch`. */
  fetch?: (input: Request) => Promise<Response>;
}

/**
 * Per-call options of {@link ActionQueueClient}.
 * @publicApi
 */
export interface ActionQueueCallOptions {
  /** Aborts the call (and its further tries); the abort error is thrown as is. */
  signal?: AbortSignal;
}

const DEFAULTS = { timeoutMs: 30_000, retries: 3, retryDelayMs: 200, maxRetryDelayMs: 5_000 };

/** What openapi-fetch resolves with. */
interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * A typed client of the ordered action queue's REST API, for producers in
 * other Node services. Its types are generated from the service's OpenAPI
 * document (openapi-typescript) and requests go through openapi-fetch.
 *
 * Errors: {@link ActionQueueHttpError} carries the HTTP status and Nest's
 * messages; {@link ActionQueueNetworkError} means no answer came.
 *
 * Retries, only where repeating cannot do harm: an enqueue is tried again
 * after a 503 (the database was away, nothing was written) or a network error
 * only when it carries an `idempotencyKey` (a batch: when every item does), so
 * a first try that did commit is answered with the existing action instead of
 * a duplicate; reads are tried again likewise; cancel and retry never are.
 *
 * @example
 * ```ts
 * const queue = new ActionQueueClient({ baseUrl: 'http://queue.internal:3000', apiKey: process.env.QUEUE_API_KEY });
 * const { action, created } = await queue.enqueue({ type: 'invoice.send', lockId: '42', payload: { invoiceId: 7 }, idempotencyKey: 'invoice-7' });
 * ```
 * @publicApi
 */
export class ActionQueueClient {
  private readonly http: ReturnType<typeof createClient<paths>>;
  private readonly settings: typeof DEFAULTS;

  constructor(options: ActionQueueClientOptions) {
    const headers: Record<string, string> = { ...options.headers };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    this.http = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), headers, fetch: options.fetch });
    this.settings = {
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      retries: options.retries ?? DEFAULTS.retries,
      retryDelayMs: options.retryDelayMs ?? DEFAULTS.retryDelayMs,
      maxRetryDelayMs: options.maxRetryDelayMs ?? DEFAULTS.maxRetryDelayMs,
    };
  }

  /**
   * Enqueues one action (`POST /actions`).
   * @returns the action, and `created: false` when its `idempotencyKey` was already used (the existing action).
   * @throws ActionQueueHttpError: 400 naming the field (or a type with no handler), 409 when the key belongs to
   *   another type or lock id, 413, 401, 503 once the tries are spent.
   * @throws ActionQueueNetworkError when no answer came (after the tries, with an idempotency key).
   */
  async enqueue(action: NewAction, options: ActionQueueCallOptions = {}): Promise<{ action: Action; created: boolean }> {
    const retrySafe = typeof action.idempotencyKey === 'string';
    const { data, response } = await this.call('POST', '/actions', retrySafe, options, (signal) => this.http.POST('/actions', { body: action, signal }));
    return { action: data, created: response.status === 201 };
  }

  /**
   * Enqueues 1..1000 actions atomically (`POST /actions/batch`); within a lock id, input order is run order.
   * @returns the actions in input order.
   * @throws ActionQueueHttpError 400 naming the item's field (`actions.3.type`), nothing written; see {@link enqueue}.
   */
  async enqueueBatch(actions: NewAction[], options: ActionQueueCallOptions = {}): Promise<Action[]> {
    const retrySafe = actions.length > 0 && actions.every((a) => typeof a.idempotencyKey === 'string');
    const { data } = await this.call('POST', '/actions/batch', retrySafe, options, (signal) => this.http.POST('/actions/batch', { body: { actions }, signal }));
    return data.actions;
  }

  /**
   * One action with its trace (`GET /actions/:id`).
   * @param id the action id (decimal string).
   * @param options `content: false` reads it without its payload, result, lastError and the trace's errors and
   *   stacks (`contentOmitted`, with `contentBytes`): a read that always fits the service's MAX_RESPONSE_BYTES.
   * @throws ActionQueueHttpError 404 when there is no such action, 400 for an id that is not a positive integer,
   *   413 when, with its content, it is over MAX_RESPONSE_BYTES (read it again with `content: false`).
   */
  async get(id: string, options: ActionQueueCallOptions & { content?: boolean } = {}): Promise<ActionWithTrace> {
    const query = options.content === false ? { content: 'false' as const } : undefined;
    const path = `/actions/${id}${query ? '?content=false' : ''}`;
    return (await this.call('GET', path, true, options, (signal) => this.http.GET('/actions/{id}', { params: { path: { id }, query }, signal }))).data;
  }

  /**
   * A page of actions in id order (`GET /actions`); pass `after: page.nextCursor` for the next one.
   * @throws ActionQueueHttpError 400 naming a bad filter.
   */
  async list(params: ListActionsParams = {}, options: ActionQueueCallOptions = {}): Promise<ActionsPage> {
    return (await this.call('GET', '/actions', true, options, (signal) => this.http.GET('/actions', { params: { query: params }, signal }))).data;
  }

  /**
   * Cancels a pending or failed action, or requests the cancellation of a running one (`POST /actions/:id/cancel`). Never retried.
   * @throws ActionQueueHttpError 404, or 409 from `done` or `cancelled`.
   */
  async cancel(id: string, options: ActionQueueCallOptions = {}): Promise<ActionCommandResult> {
    const path = `/actions/${id}/cancel`;
    return (await this.call('POST', path, false, options, (signal) => this.http.POST('/actions/{id}/cancel', { params: { path: { id } }, signal }))).data;
  }

  /**
   * Retries a failed action (`POST /actions/:id/retry`): in place under `block`, as a new action at the group's tail
   * under `skip`. Never retried itself.
   * @throws ActionQueueHttpError 404, or 409 when the action is not failed or was already retried, or 413 when a `skip`
   *   action's payload is over the database's payload limit.
   */
  async retry(id: string, options: ActionQueueCallOptions = {}): Promise<ActionCommandResult> {
    const path = `/actions/${id}/retry`;
    return (await this.call('POST', path, false, options, (signal) => this.http.POST('/actions/{id}/retry', { params: { path: { id } }, signal }))).data;
  }

  /**
   * A group's head, and whether it is blocked (`GET /groups/:lockId`).
   * @param lockId the group key (decimal string).
   */
  async group(lockId: string, options: ActionQueueCallOptions = {}): Promise<ActionGroup> {
    const path = `/groups/${lockId}`;
    return (await this.call('GET', path, true, options, (signal) => this.http.GET('/groups/{lockId}', { params: { path: { lockId } }, signal }))).data;
  }

  /**
   * The group a string key names (`GET /groups/by-key/:groupKey`): as {@link ActionQueueClient.group}, with its `groupKey`.
   * @param groupKey the string group key given at enqueue.
   * @throws ActionQueueHttpError 404 when no action ever used the key, 400 for a malformed key.
   */
  async groupByKey(groupKey: string, options: ActionQueueCallOptions = {}): Promise<ActionGroup> {
    const path = `/groups/by-key/${encodeURIComponent(groupKey)}`;
    return (await this.call('GET', path, true, options, (signal) => this.http.GET('/groups/by-key/{groupKey}', { params: { path: { groupKey } }, signal })))
      .data;
  }

  /** Counts by status, the oldest pending age and the blocked groups (`GET /stats`). */
  async stats(options: ActionQueueCallOptions = {}): Promise<QueueStats> {
    return (await this.call('GET', '/stats', true, options, (signal) => this.http.GET('/stats', { signal }))).data;
  }

  /**
   * Sends a request, trying it again after a 503 or a network error while
   * `retrySafe` and tries are left.
   */
  private async call<T>(
    method: string,
    path: string,
    retrySafe: boolean,
    options: ActionQueueCallOptions,
    request: (signal: AbortSignal) => Promise<FetchResult<T>>,
  ): Promise<{ data: T; response: Response }> {
    for (let attempt = 0; ; attempt++) {
      const canRetry = retrySafe && attempt < this.settings.retries;
      const timeout = AbortSignal.timeout(this.settings.timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      let result: FetchResult<T>;
      try {
        result = await request(signal);
      } catch (error) {
        if (options.signal?.aborted) throw error;
        if (!canRetry) throw new ActionQueueNetworkError(method, path, error);
        await this.pause(attempt, options.signal);
        continue;
      }
      if (result.response.ok) return { data: result.data as T, response: result.response };
      if (result.response.status === 503 && canRetry) {
        await this.pause(attempt, options.signal);
        continue;
      }
      throw new ActionQueueHttpError(method, path, result.response.status, result.error);
    }
  }

  /** Waits before try `attempt + 1`: full jitter over an exponential ceiling. */
  private pause(attempt: number, signal: AbortSignal | undefined): Promise<void> {
    const ceiling = Math.min(this.settings.maxRetryDelayMs, this.settings.retryDelayMs * 2 ** attempt);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, Math.random() * ceiling);
      signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
    });
  }
}
