import { validateSync } from 'class-validator';
import { IsIntegerIn, IsNumberIn, IsTextOfLength } from './single-rule.validator';

class Sample {
  @IsIntegerIn(1, 10)
  n: unknown;

  @IsNumberIn(0.5, 2)
  rate: unknown;

  @IsTextOfLength(1, 3)
  name: unknown;
}

const messagesOf = (values: Partial<Record<keyof Sample, unknown>>): string[] =>
  validateSync(Object.assign(new Sample(), { n: 5, rate: 1, name: 'ab', ...values })).flatMap((e) => Object.values(e.constraints ?? {}));

describe('single-rule validators: one message per field, whatever is wrong', () => {
  it('accepts values in range', () => {
    expect(messagesOf({})).toEqual([]);
    expect(messagesOf({ n: 1, rate: 0.5, name: 'abc' })).toEqual([]);
  });

  it.each([undefined, null])('says a missing value (%p) is required, once', (value) => {
    expect(messagesOf({ n: value })).toEqual(['n is required: an integer from 1 to 10']);
  });

  it.each(['5', 0, 11, 1.5, NaN, [5], { n: 5 }])('refuses %p with one message', (value) => {
    expect(messagesOf({ n: value })).toEqual(['n must be an integer from 1 to 10']);
  });

  it('refuses numeric strings, infinities and out-of-range numbers for a number', () => {
    for (const rate of ['1', Infinity, 0.4, 3]) expect(messagesOf({ rate })).toEqual(['rate must be a number from 0.5 to 2']);
  });

  it('refuses empty, long, NUL-holding and non-string text', () => {
    for (const name of ['', 'abcd', 'a\u0000', 5]) {
      expect(messagesOf({ name })).toEqual(['name must be a string of 1..3 characters without the NUL character']);
    }
  });
});
