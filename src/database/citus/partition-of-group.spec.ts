import { parsePartitionSchema, partitionOfGroup, partitionSchema } from './partition-of-group';

describe('partitionOfGroup: the Citus partition of a group (docs/scale-out.md)', () => {
  it('is the first 32 bits of the MD5 of the group text, modulo the partition count', () => {
    // md5('26') = 4e732ced…: 0x4e732ced = 1316170989, the value PostgreSQL's ('x' || left(md5('26'), 8))::bit(32)::bigint gives.
    expect(partitionOfGroup('26', 1_000)).toBe(1316170989 % 1_000);
    expect(partitionOfGroup('26', 1)).toBe(0);
  });

  it('is stable and spreads groups over every partition', () => {
    const counts = new Array<number>(8).fill(0);
    for (let i = 0; i < 8_000; i++) counts[partitionOfGroup(String(i), 8)]++;
    for (const n of counts) expect(n).toBeGreaterThan(800);
    expect(partitionOfGroup('tenant:42', 8)).toBe(partitionOfGroup('tenant:42', 8));
  });

  it('refuses a partition count outside 1..1024', () => {
    expect(() => partitionOfGroup('1', 0)).toThrow(RangeError);
    expect(() => partitionOfGroup('1', 1.5)).toThrow(RangeError);
  });

  it('names partitions <prefix>_p<index> and reads the name back', () => {
    expect(partitionSchema('action_queue', 3)).toBe('action_queue_p3');
    expect(parsePartitionSchema('action_queue_p3')).toEqual({ prefix: 'action_queue', index: 3 });
    expect(parsePartitionSchema('action_queue')).toBeNull();
  });
});
