import { BadRequestException } from '@nestjs/common';
import { groupKeyProblem } from './dto/group-key.validator';
import { SELECT_GROUP_KEY_LOCK_ID_SQL } from './sql/manage-actions.sql';

/** Runs one statement and returns its rows (a DataSource's or an EntityManager's `query`). */
export type RunRows = (sql: string, params: unknown[]) => Promise<unknown>;

/**
 * The lock id the database interned `groupKey` as, or null when the key was
 * never used: the one lookup behind the list filter `groupKey` and
 * `GET /groups/by-key/:groupKey`.
 * @throws BadRequestException (400) naming `groupKey` when it is not a valid key.
 */
export async function internedLockId(query: RunRows, groupKey: string): Promise<string | null> {
  const problem = groupKeyProblem(groupKey);
  if (problem) throw new BadRequestException([`groupKey ${problem}`]);
  const [interned] = (await query(SELECT_GROUP_KEY_LOCK_ID_SQL, [groupKey])) as { lock_id: string }[];
  return interned?.lock_id ?? null;
}
