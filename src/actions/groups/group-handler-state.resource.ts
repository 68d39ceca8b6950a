/**
 * A group's stored state (`ctx.groupState`, `GET /groups/:lockId/state`):
 * what the last completed action that changed it set, and how many did.
 * @publicApi
 */
export interface GroupHandlerStateResource {
  /** The group, canonical decimal string. */
  lockId: string;
  /** The JSON value the handlers stored. */
  state: unknown;
  /** Completed actions that changed it (1 for the first). */
  version: number;
  /** When it last changed (ISO 8601). */
  updatedAt: string;
}
