/** Runs one statement and returns its rows (a DataSource's or a QueryRunner's `query`). */
type Query = (sql: string, params?: unknown[]) => Promise<unknown[]>;

/** Whether the citus extension is installed in the connected database. */
export async function hasCitus(query: Query): Promise<boolean> {
  const [row] = (await query(`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS found`)) as { found: boolean }[];
  return row.found;
}

/** QUEUE_MODE does not fit the server: start-up stops with this (docs/scale-out.md). */
export class QueueModeMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueueModeMismatchError';
  }
}

/**
 * Refuses a QUEUE_MODE that does not fit the database, before anything is
 * created in it: `citus` needs the citus extension (a Citus coordinator), and
 * `plain` refuses a database that has it, where the queue's tables would be
 * local tables of the coordinator, every node's work would go through one
 * server, and nothing would say so.
 *
 * @param query runs a statement on the queue's database.
 * @param mode QUEUE_MODE.
 * @throws QueueModeMismatchError naming the setting to change.
 */
export async function refuseQueueModeMismatch(query: Query, mode: 'plain' | 'citus'): Promise<void> {
  const citus = await hasCitus(query);
  if (mode === 'citus' && !citus) {
    throw new QueueModeMismatchError(
      'QUEUE_MODE=citus, but this database has no citus extension: point DATABASE_URL at a Citus coordinator (CREATE EXTENSION citus), or unset QUEUE_MODE for plain PostgreSQL (docs/scale-out.md)',
    );
  }
  if (mode === 'plain' && citus) {
    throw new QueueModeMismatchError(
      "This database has the citus extension (a Citus cluster): set QUEUE_MODE=citus and DATABASE_SCHEMA to one of the queue's partitions (<prefix>_p<index>), or use a database without citus for plain PostgreSQL (docs/scale-out.md)",
    );
  }
}
