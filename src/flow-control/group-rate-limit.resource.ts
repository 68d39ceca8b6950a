/**
 * The rate limit of one group (`PUT /rate-limits/groups/:lockId`, `groups` of
 * `GET /rate-limits`): its starts are spaced at least 1 / `perSecond` seconds
 * apart, after up to `burst` at once.
 * @publicApi
 */
export interface GroupRateLimitResource {
  /** The group's lock id (decimal string, signed 64-bit). */
  lockId: string;
  /** The group's string key, when it has one. */
  groupKey: string | null;
  /** Starts per second of this group, on all instances together. */
  perSecond: number;
  /** Starts allowed in quick succession after a quiet spell. */
  burst: number;
  /** When it last changed (ISO 8601). */
  updatedAt: string;
}
