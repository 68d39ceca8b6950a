/**
 * The service answered with an error status. `status` is the HTTP status
 * (400 bad field, 401 API key, 404 not found, 409 conflict, 413 too large,
 * 415 not JSON, 503 database away: nothing was written); `messages` are the
 * lines of Nest's `message` field, each naming the offending field.
 * @publicApi
 */
export class ActionQueueHttpError extends Error {
  /**
   * @param method the HTTP method, e.g. `POST`.
   * @param path the path requested, e.g. `/actions`.
   * @param status the HTTP status of the answer.
   * @param body the parsed error body (Nest's `{ statusCode, message, error }`), if any.
   */
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    const messages = messagesOf(body);
    super(`${method} ${path} answered ${status}${messages.length ? `: ${messages.join('; ')}` : ''}`);
    this.name = 'ActionQueueHttpError';
    this.messages = messages;
    this.error = typeof (body as { error?: unknown } | null)?.error === 'string' ? (body as { error: string }).error : undefined;
  }

  /** Nest's `message`, as a list (it may be one string or several). */
  readonly messages: string[];
  /** Nest's `error`, the status text (e.g. `Bad Request`), when the body has one. */
  readonly error: string | undefined;
}

/**
 * The request got no answer: connection refused or reset, DNS failure, or
 * the client's `timeoutMs` passed. Whether the service acted on it is unknown.
 * @publicApi
 */
export class ActionQueueNetworkError extends Error {
  /**
   * @param method the HTTP method, e.g. `POST`.
   * @param path the path requested.
   * @param cause the error thrown by `fetch`.
   */
  constructor(
    readonly method: string,
    readonly path: string,
    cause: unknown,
  ) {
    super(`${method} ${path} got no answer: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ActionQueueNetworkError';
  }
}

function messagesOf(body: unknown): string[] {
  const message = (body as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return [message];
  if (Array.isArray(message)) return message.map(String);
  return [];
}
