import { chunkEnds, EndOf } from './chunk-ends';
import { LeasedActionRow } from '../sql/leased-action.sql';

const rows = (n: number, onFailure: 'block' | 'skip' = 'block') =>
  Array.from({ length: n }, (_, i) => ({ id: String(i + 1), on_failure: onFailure, lock_id: '7', type: 't' }) as LeasedActionRow);

/** Done for a reported success, a charged retry for a failure whose error says "retry", a final failure otherwise. */
const endOf: EndOf = (_row, outcome) =>
  outcome.ok
    ? { kind: 'done', outcome: 'done', resultJson: JSON.stringify(outcome.result ?? null) }
    : String(outcome.error) === 'retry'
      ? { kind: 'retry', outcome: 'error', error: 'retry', delayMs: 10 }
      : { kind: 'failed', outcome: 'error', error: String(outcome.error) };

const kinds = (ends: { kind: string }[]) => ends.map((e) => e.kind).join(' ');
const done = { ok: true as const, result: 1 };

describe('chunkEnds', () => {
  it('keeps the done prefix and the first action that holds the group; releases every action after it, whatever was reported', () => {
    const value = [done, done, { ok: false, error: 'retry' }, done, done];
    expect(kinds(chunkEnds(rows(5), { kind: 'reported', value }, endOf))).toBe('done done retry released released');
  });

  it('goes on past a final failure under skip (it releases its group), and stops at one under block', () => {
    const value = [done, { ok: false, error: 'bad' }, done];
    expect(kinds(chunkEnds(rows(3, 'skip'), { kind: 'reported', value }, endOf))).toBe('done failed done');
    expect(kinds(chunkEnds(rows(3, 'block'), { kind: 'reported', value }, endOf))).toBe('done failed released');
  });

  it('releases the actions not reported, and fails the first when the value is not an array of at most one outcome per action', () => {
    expect(kinds(chunkEnds(rows(3), { kind: 'reported', value: [done] }, endOf))).toBe('done released released');
    expect(kinds(chunkEnds(rows(2), { kind: 'reported', value: [done, done, done] }, endOf))).toBe('failed released');
    expect(kinds(chunkEnds(rows(2), { kind: 'reported', value: 'all good' }, endOf))).toBe('failed released');
    const invalid = chunkEnds(rows(2), { kind: 'reported', value: [done, { result: 2 }] }, endOf);
    expect(kinds(invalid)).toBe('done failed');
    expect(invalid[1].error).toContain('outcome 1 of handleChunk');
  });

  it('a throw or a stop ends the first action as given and releases the rest; a cancel ends only its own action', () => {
    const retry = { kind: 'retry' as const, outcome: 'error' as const, error: 'boom', delayMs: 5 };
    expect(kinds(chunkEnds(rows(3), { kind: 'threw', end: retry }, endOf))).toBe('retry released released');
    const cancelled = { kind: 'cancelled' as const, outcome: 'cancelled' as const };
    expect(kinds(chunkEnds(rows(3), { kind: 'aborted', end: cancelled, cancelledId: '2' }, endOf))).toBe('released cancelled released');
    expect(kinds(chunkEnds(rows(4), { kind: 'reported', value: [done, done, done], cancelledId: '2' }, endOf))).toBe('done cancelled done released');
    const stuck = { kind: 'released' as const, outcome: 'released' as const, delayMs: 2_000 };
    expect(chunkEnds(rows(2), { kind: 'aborted', end: stuck }, endOf).map((e) => e.delayMs)).toEqual([2_000, 2_000]);
  });
});
