/**
 * What a pause covers: the whole queue, one action type, or one group
 * (by lock id or string group key), or one tenant (docs/tenants.md). The values of action_pauses.scope
 * (src/database/sql/030-flow-control.up.sql).
 * @publicApi
 */
export type PauseScope = 'queue' | 'type' | 'group' | 'tenant';
/** Every {@link PauseScope}. */
export const PAUSE_SCOPES = ['queue', 'type', 'group', 'tenant'] as const satisfies readonly PauseScope[];
