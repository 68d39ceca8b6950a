import { PermanentFailureError } from '../../handlers/permanent-failure.error';
import { describeThrown, isPermanentFailure, MAX_ERROR_MESSAGE_CHARS, MAX_ERROR_STACK_CHARS } from './thrown-value';

describe('describeThrown', () => {
  it('names an Error by its class, keeps its extra fields and its stack frames apart', () => {
    const error = Object.assign(new TypeError('bad input'), { code: 'E_BAD' });
    const { message, stack } = describeThrown(error);
    expect(message).toBe('TypeError: bad input {"code":"E_BAD"}');
    expect(stack).toMatch(/^\s+at /);
  });

  it('shows a plain Error by its message alone, and no field the message already shows', () => {
    expect(describeThrown(Object.assign(new Error('timed out after 1000 ms'), { timeoutMs: 1000 })).message).toBe('timed out after 1000 ms');
  });

  it('writes objects as JSON with their fields, a null-prototype object included', () => {
    expect(describeThrown({ code: 42 }).message).toBe('{"code":42}');
    expect(describeThrown(Object.assign(Object.create(null) as object, { a: 1 })).message).toBe('{"a":1}');
  });

  it('never throws, whatever the value: a throwing toString, a throwing getter, a cycle, a symbol, undefined', () => {
    const evil = {
      toString() {
        throw new Error('no');
      },
    };
    const getter = Object.defineProperty({}, 'x', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const value of [evil, getter, cycle, Symbol('s'), undefined, null, 7n]) {
      const { message } = describeThrown(value);
      expect(typeof message).toBe('string');
      expect(message.length).toBeGreaterThan(0);
    }
    expect(describeThrown(evil).message).toContain('toString');
  });

  it('keeps the head and the tail of a long message, and bounds the stack', () => {
    const error = new Error(`HEAD${'x'.repeat(100_000)}TAIL`);
    error.stack = `Error: short\n${'    at frame\n'.repeat(5_000)}`;
    const { message, stack } = describeThrown(error);
    expect(message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS + 60);
    expect(message.startsWith('HEAD')).toBe(true);
    expect(message.endsWith('TAIL')).toBe(true);
    expect(message).toMatch(/\[\d+ characters omitted\]/);
    expect(stack!.length).toBe(MAX_ERROR_STACK_CHARS);
  });

  it('drops NUL characters and replaces unpaired surrogates, which PostgreSQL text cannot hold', () => {
    expect(describeThrown('a\u0000b\ud800c').message).toBe('ab\ufffdc');
  });
});

describe('isPermanentFailure', () => {
  it('knows a PermanentFailureError by class or by name (another copy of the package), and never throws', () => {
    expect(isPermanentFailure(new PermanentFailureError('no'))).toBe(true);
    expect(isPermanentFailure(Object.assign(new Error('other copy'), { name: 'PermanentFailureError' }))).toBe(true);
    expect(isPermanentFailure(new Error('retry me'))).toBe(false);
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('proxy trap');
        },
        getPrototypeOf() {
          throw new Error('proxy trap');
        },
      },
    );
    expect(isPermanentFailure(hostile)).toBe(false);
    expect(isPermanentFailure(null)).toBe(false);
  });
});
