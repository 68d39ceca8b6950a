import { PermanentFailureError } from '../../handlers/permanent-failure.error';
import { jsonLengthExceeds, toResultJson } from './handler-result';

describe('toResultJson', () => {
  it('stores a result nested deeper than JSON.stringify can recurse, as the same JSON text', () => {
    const depth = 100_000;
    let deep: unknown = 'end';
    for (let i = 0; i < depth; i++) deep = [deep];
    expect(toResultJson(deep)).toBe(`${'['.repeat(depth)}"end"${']'.repeat(depth)}`);
  });

  it('still refuses what JSON cannot represent', () => {
    expect(() => toResultJson({ n: 1n })).toThrow(PermanentFailureError);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => toResultJson(cycle)).toThrow(PermanentFailureError);
  });

  it('refuses a result whose toJSON throws null (or any non-Error) as a permanent failure with a readable reason', () => {
    for (const thrown of [null, undefined, 42, 'nope', { code: 7 }]) {
      const hostile = {
        toJSON() {
          throw thrown;
        },
      };
      let caught: unknown;
      try {
        toResultJson(hostile);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(PermanentFailureError);
      expect((caught as Error).message).toMatch(/^handler result is not JSON-serialisable: /);
      expect((caught as Error).message).not.toMatch(/Cannot read properties/);
    }
  });
});

describe('jsonLengthExceeds', () => {
  it('tells a result longer than the limit from one that fits, without writing it', () => {
    expect(jsonLengthExceeds({ s: 'y'.repeat(1_000) }, 900)).toBe(true);
    expect(jsonLengthExceeds({ s: 'y'.repeat(1_000) }, 2_000)).toBe(false);
    expect(
      jsonLengthExceeds(
        Array.from({ length: 1_000 }, () => 12345),
        3_000,
      ),
    ).toBe(true);
    const cycle: Record<string, unknown> = { a: 'x' };
    cycle.self = cycle;
    expect(jsonLengthExceeds(cycle, 100)).toBe(false);
  });
});
