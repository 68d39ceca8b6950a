import type { Client } from 'pg';

/**
 * Enqueues one action by plain SQL, as a producer writing to the table does
 * (no REST, no idempotency key), and returns its id.
 *
 * @param client a connection to the queue's database (in or outside a transaction).
 * @param lockId the group (null: no group).
 * @param type the action type, e.g. `instance.create` or a fixture's `test.sleep`.
 * @param payload stored as the JSON payload.
 * @param maxAttempts the action's attempt budget; default the column's.
 * @returns the new action's id (text: ids are bigint).
 */
export async function insertAction(client: Client, lockId: number | string | null, type: string, payload: object = {}, maxAttempts?: number): Promise<string> {
  const { rows } =
    maxAttempts === undefined
      ? await client.query<{ id: string }>(`INSERT INTO actions (lock_id, type, payload) VALUES ($1, $2, $3) RETURNING id::text`, [lockId, type, payload])
      : await client.query<{ id: string }>(`INSERT INTO actions (lock_id, type, payload, max_attempts) VALUES ($1, $2, $3, $4) RETURNING id::text`, [
          lockId,
          type,
          payload,
          maxAttempts,
        ]);
  return rows[0].id;
}
