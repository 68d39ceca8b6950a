import { LeasedActionRow } from '../sql/leased-action.sql';

/**
 * What one slot runs: one action, or the actions of one ordered chunk (its
 * first action, the group's head, then its members, ids ascending).
 */
export type LeasedUnit = LeasedActionRow[];

/**
 * Groups the rows one statement leased into what each slot runs. A claim or
 * a finishing statement leases at most one chunk per group (a group's next
 * action can start only once its running chunk has ended), so the rows of a
 * chunked type that share a group are that group's chunk; every other row is
 * a unit of its own.
 *
 * @param rows leased rows, in any order.
 * @param isChunked whether a type runs in chunks.
 * @returns the units, in the order of their first row; the rows of a chunk by ascending id.
 */
export function groupIntoUnits(rows: LeasedActionRow[], isChunked: (type: string) => boolean): LeasedUnit[] {
  const units: LeasedUnit[] = [];
  const chunks = new Map<string, LeasedUnit>();
  for (const row of rows) {
    if (row.lock_id === null || !isChunked(row.type)) {
      units.push([row]);
      continue;
    }
    const chunk = chunks.get(row.lock_id);
    if (chunk) chunk.push(row);
    else {
      const unit = [row];
      chunks.set(row.lock_id, unit);
      units.push(unit);
    }
  }
  for (const chunk of chunks.values()) if (chunk.length > 1) chunk.sort(byId);
  return units;
}

/** Orders decimal id strings (positive 64-bit integers) numerically. */
function byId(a: LeasedActionRow, b: LeasedActionRow): number {
  return a.id.length - b.id.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
