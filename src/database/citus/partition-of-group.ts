import { createHash } from 'node:crypto';

/**
 * The partition of a group in Citus mode (docs/scale-out.md, "Partitions"):
 * the first 32 bits of the MD5 of the group's text, as an unsigned integer,
 * modulo the number of partitions. The group's text is the decimal lock id
 * of an integer group (`"26"`, `"-4"`) and the key itself of a string group
 * (`"tenant:42"`). The SQL twin, `aq_partition_of(text, integer)`
 * (src/database/functions/aq_partition_of.sql), computes the same number, so
 * REST and SQL producers put a group in one partition; a spec checks both on
 * the same inputs. MD5 because both sides have it built in and it is fixed
 * forever (PostgreSQL's `hashtext` is internal and may change between majors).
 *
 * @param group the group's text: a lock id in decimal, or a string group key.
 * @param partitions how many partitions the queue has (CITUS_PARTITIONS, 1..1024).
 * @returns 0 .. partitions-1.
 * @throws RangeError when `partitions` is not an integer from 1 to 1024.
 */
export function partitionOfGroup(group: string, partitions: number): number {
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > 1024)
    throw new RangeError(`partitions must be an integer from 1 to 1024, not ${partitions}`);
  const first32 = parseInt(createHash('md5').update(group, 'utf8').digest('hex').slice(0, 8), 16);
  return first32 % partitions;
}

/**
 * Name of partition `index` of a queue whose partitions are named from
 * `prefix`: `<prefix>_p<index>` (`action_queue_p3`).
 */
export function partitionSchema(prefix: string, index: number): string {
  return `${prefix}_p${index}`;
}

/**
 * The prefix and index of a partition's schema name, or null when `schema`
 * is not named like one (`<prefix>_p<index>`).
 */
export function parsePartitionSchema(schema: string): { prefix: string; index: number } | null {
  const match = /^(.+)_p(\d+)$/.exec(schema);
  return match ? { prefix: match[1], index: Number(match[2]) } : null;
}
