import { BOTH_GROUP_NAMES, groupKeyProblem, MAX_RESERVED_LOCK_ID, reservedLockIdProblem } from './group-key.validator';
import { enqueueLockIdProblem, lockIdProblem } from './lock-id.validator';

describe('groupKeyProblem', () => {
  it('accepts any Unicode text of 1..255 bytes of UTF-8', () => {
    for (const key of ['a', 'tenant:42', '0b4f3a0e-8d7c-4b36-9a55-3c1f2b9e8d10', 'é'.repeat(127) + 'x', '🚀'.repeat(63), 'with / slash and spaces']) {
      expect([key, groupKeyProblem(key)]).toEqual([key, null]);
    }
  });

  it('names what is wrong with anything else', () => {
    expect(groupKeyProblem('')).toBe('must not be empty');
    expect(groupKeyProblem('a\u0000b')).toBe('must not contain the NUL character');
    expect(groupKeyProblem('a\ud800')).toContain('lone surrogate');
    expect(groupKeyProblem('é'.repeat(128))).toBe('is 256 bytes of UTF-8; the limit is 255');
    expect(groupKeyProblem(42)).toBe('must be a string');
    expect(groupKeyProblem(null)).toBe('must be a string');
  });
});

describe('lock ids reserved for string group keys', () => {
  it('are the lowest 2^48 values of bigint: refused on enqueue, readable everywhere', () => {
    const min = (-(2n ** 63n)).toString();
    const max = MAX_RESERVED_LOCK_ID.toString();
    const above = (MAX_RESERVED_LOCK_ID + 1n).toString();
    expect(max).toBe('-9223090561878065153');
    for (const id of [min, max]) {
      expect(enqueueLockIdProblem(id)).toContain('reserved for string group keys');
      expect(lockIdProblem(id)).toBeNull();
    }
    for (const id of [above, '-1', '0', '26', (2n ** 63n - 1n).toString()]) expect([id, enqueueLockIdProblem(id)]).toEqual([id, null]);
    expect(reservedLockIdProblem('-9223372036854775807')).not.toBeNull();
    // A malformed lock id keeps its own message.
    expect(enqueueLockIdProblem('x')).toBe(lockIdProblem('x'));
  });

  it('have a message naming both fields when both are given', () => {
    expect(BOTH_GROUP_NAMES).toMatch(/^groupKey and lockId/);
  });
});
