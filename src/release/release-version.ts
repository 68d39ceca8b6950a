/**
 * This release's version, as in package.json (a unit spec keeps the two
 * equal). Compiled in rather than read from package.json at run time, whose
 * place relative to the code differs between the repository and an install.
 */
export const RELEASE_VERSION = '0.4.0';

/**
 * The `application_name` of every connection this release opens itself
 * (pool, LISTEN, heartbeat, watchdog: `<this>` or `<this>:<role>`), so that
 * `pg_stat_activity` tells which release each instance runs. The upgrade
 * from 0.1 uses it to refuse while a 0.1 instance is connected.
 */
export const QUEUE_APPLICATION_NAME = `ordered-action-queue/${RELEASE_VERSION}`;
