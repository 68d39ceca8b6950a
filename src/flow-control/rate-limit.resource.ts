/**
 * The rate limit in force for one action type (`GET /rate-limits`).
 * @publicApi
 */
export interface RateLimitResource {
  /** The action type. */
  type: string;
  /** Starts per second in force (the override, else the handler's default). */
  perSecond: number;
  /** Starts allowed at once after a quiet spell. */
  burst: number;
  /** Where the limit in force comes from: `override` (PUT /rate-limits/:type) or `handler` (@ActionHandler rateLimit). */
  source: 'override' | 'handler';
  /** The handler's default, or null. */
  handlerDefault: { perSecond: number; burst: number } | null;
  /** When it last changed (ISO 8601). */
  updatedAt: string;
}
