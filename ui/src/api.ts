import { getApiKey } from './api-key';

/** The API refused the key (401): the page asks for it again. */
export class UnauthorizedError extends Error {}

/** Any other error answer, with Nest's `message` joined into one line. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const unauthorizedListeners = new Set<() => void>();

/** Calls `listener` whenever the API answers 401. Returns the unsubscribe function. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/**
 * The REST API's root: the page is served at `<root>/ui/`, so the API is one
 * level up (works behind a proxy that mounts the service under a path too).
 */
function apiUrl(path: string): string {
  return new URL(`..${path}`, new URL('.', window.location.href)).toString();
}

async function call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, signal?: AbortSignal, body?: object): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const key = getApiKey();
  // The key travels in a header only, never in the URL.
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(apiUrl(path), { method, headers, signal, cache: 'no-store', body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status === 401) {
    unauthorizedListeners.forEach((listener) => listener());
    throw new UnauthorizedError('The API key is missing or wrong');
  }
  const answer: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const message = (answer as { message?: string | string[] } | null)?.message;
    throw new ApiError(res.status, Array.isArray(message) ? message.join('; ') : (message ?? `HTTP ${res.status}`));
  }
  return answer as T;
}

/** GET a JSON resource of the REST API, e.g. `apiGet('/stats')`. */
export function apiGet<T>(path: string, signal?: AbortSignal): Promise<T> {
  return call<T>('GET', path, signal);
}

/** POST without a body, e.g. `apiPost('/actions/17/retry')`. */
export function apiPost<T>(path: string): Promise<T> {
  return call<T>('POST', path);
}

/** POST a JSON body, e.g. `apiPostJson('/bulk-operations', { operation: 'retry', filter, dryRun: true })`. */
export function apiPostJson<T>(path: string, body: object): Promise<T> {
  return call<T>('POST', path, undefined, body);
}

/** PUT a JSON body, e.g. `apiPutJson('/rate-limits/invoice.send', { perSecond: 5, burst: 1 })`. */
export function apiPutJson<T>(path: string, body: object): Promise<T> {
  return call<T>('PUT', path, undefined, body);
}

/** DELETE, e.g. `apiDelete('/pauses/3')`; a 204 answer gives null. */
export function apiDelete<T = null>(path: string): Promise<T> {
  return call<T>('DELETE', path);
}

/** Builds a query string from the defined values: `query({ status: 'failed', after: undefined })` is `?status=failed`. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
