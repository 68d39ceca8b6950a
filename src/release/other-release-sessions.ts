import type { DataSource } from 'typeorm';
import { QUEUE_APPLICATION_NAME } from './release-version';

/** A connection of another release's instance, from `pg_stat_activity`. */
export interface OtherReleaseSession {
  pid: number;
  /** Its `application_name`, e.g. `ordered-action-queue/0.3.0:listen`. */
  applicationName: string;
}

/**
 * The connections to this database of instances of other releases (0.2.0 and
 * later name theirs `ordered-action-queue/<version>[:role]`). Migrations are
 * not applied while there are any: old and new releases never run together
 * across a schema change (README, "Upgrading").
 *
 * @param dataSource any DataSource on the queue's database.
 */
export async function otherReleaseSessions(dataSource: DataSource): Promise<OtherReleaseSession[]> {
  const rows: { pid: number; application_name: string }[] = await dataSource.query(
    `SELECT pid, application_name FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid()
       AND application_name LIKE 'ordered-action-queue/%' AND split_part(application_name, ':', 1) <> $1
     ORDER BY pid`,
    [QUEUE_APPLICATION_NAME],
  );
  return rows.map((r) => ({ pid: r.pid, applicationName: r.application_name }));
}
