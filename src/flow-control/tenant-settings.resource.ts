/**
 * A tenant's settings, as `GET /tenants/:tenant/settings` and `PUT` answer
 * (docs/tenants.md). A tenant without stored settings has weight 1, no cap and
 * no rate limit.
 * @publicApi
 */
export interface TenantSettingsResource {
  /** The tenant's name. */
  tenant: string;
  /** Its share of the claim relative to the other tenants with ready heads: heads per turn, in (0, 1000]. */
  weight: number;
  /** The most of its actions running at once (>= 1), or null: no cap. */
  maxRunning: number | null;
  /** Its rate limit: starts per second on all instances together (0.001..100 000), or null: none. */
  ratePerSecond: number | null;
  /** Starts allowed at once after a quiet spell (1..100 000) when rate limited, else null. */
  rateBurst: number | null;
  /** Whether settings are stored for it (false: the defaults above). */
  stored: boolean;
  /** When they were last changed (ISO 8601), or null when none are stored. */
  updatedAt: string | null;
}
