import 'reflect-metadata';
import { QueueValidationPipe } from '../../http/validation.pipe';
import { CreateActionDto } from './create-action.dto';
import { CreateActionsBatchDto } from './create-actions-batch.dto';

/**
 * The validation pipe's fast path for actions must return exactly what the
 * full pipe (class-transformer, class-validator) returns for every value it
 * accepts, and accept nothing the full pipe refuses; a refused value goes
 * through the full pipe, so its 400 is the one it always was.
 */
describe('fast path of the action DTOs', () => {
  const pipe = new QueueValidationPipe();
  const body = (metatype: unknown) => ({ type: 'body' as const, metatype: metatype as never });

  /** The full pipe's outcome: the instance, or the messages of its 400. */
  async function fullPipe(value: unknown, metatype: typeof CreateActionDto | typeof CreateActionsBatchDto): Promise<unknown> {
    const spy = jest.spyOn(metatype, 'validOrUndefined').mockReturnValue(undefined);
    try {
      return await pipe.transform(structuredClone(value), body(metatype));
    } catch (error) {
      return { refused: (error as { response?: { message?: unknown } }).response?.message };
    } finally {
      spy.mockRestore();
    }
  }

  const base = { type: 'instance.update', lockId: '26', payload: { n: 1 } };
  /** Values per field: valid ones, invalid ones and edge cases of each rule. */
  const variants: Record<string, unknown[]> = {
    type: ['a', 'instance.create', 'x'.repeat(200), 'x'.repeat(201), '', '-a', 'a b', 'é', 7, null, ['a'], { a: 1 }],
    lockId: [
      '0',
      '007',
      '-5',
      26,
      -26,
      2 ** 53 - 1,
      2 ** 53,
      1.5,
      '9223372036854775807',
      '9223372036854775808',
      '-9223372036854775808',
      '-9223090561878065153',
      '-9223090561878065152',
      ' 1',
      '1e3',
      '',
      'abc',
      null,
      true,
      {},
      [],
    ],
    groupKey: ['tenant:42', '', 'a\u0000b', '\ud800', 'é'.repeat(127), 'é'.repeat(128), 5, null],
    payload: [{}, { a: [1, { b: null }] }, { toString: 'x', constructor: 1 }, [], 'text', 3, null, true],
    runAt: [
      '2030-01-01T09:00:00Z',
      '2030-01-01T09:00:00+09:00',
      '2030-01-01T09:00:00.123456Z',
      '2030-01-01T09:00:00',
      '2030-01-01',
      '2020-02-30T00:00:00Z',
      '1969-12-31T23:59:59Z',
      '9999-12-31T23:59:59.999Z',
      'now',
      0,
      null,
    ],
    maxAttempts: [1, 5, 100, 0, 101, 1.5, -1, '5', null, Number.MAX_SAFE_INTEGER + 2],
    onFailure: ['block', 'skip', 'BLOCK', '', 1, null],
    idempotencyKey: ['k', 'x'.repeat(200), 'x'.repeat(201), '😀'.repeat(150), '😀'.repeat(201), '', 'a\u0000', 5, null],
    tenant: ['acme', 'A0._:@-z', 'x'.repeat(128), 'x'.repeat(129), '', '.a', 'a b', 'a/b', 'é', 5, null],
    unknownKey: ['x'],
    __proto__: ['x'],
    constructor: ['x'],
  };

  function cases(): unknown[] {
    const out: unknown[] = [base, { type: 'a' }, { type: 'a', lockId: null, groupKey: null, payload: null }];
    for (const [field, values] of Object.entries(variants)) {
      for (const v of values) {
        const item: Record<string, unknown> = { ...base };
        if (field === 'groupKey') delete item.lockId;
        // JSON.parse makes `__proto__` an own key, as a body does.
        out.push(field === '__proto__' ? JSON.parse(`{"type":"a","__proto__":${JSON.stringify(v)}}`) : Object.assign(item, { [field]: v }));
      }
    }
    out.push({ type: 'a', lockId: '1', groupKey: 'k' }, { lockId: '1' }, 'text', null, [], [base], Object.assign(Object.create(null), base));
    return out;
  }

  it('single actions: the same instance as the full pipe when it accepts, and it accepts what is plainly valid', async () => {
    let accepted = 0;
    for (const value of cases()) {
      const fast = CreateActionDto.validOrUndefined(value);
      const full = await fullPipe(value, CreateActionDto);
      if (fast !== undefined) {
        accepted++;
        expect(fast).toBeInstanceOf(CreateActionDto);
        expect(fast).toStrictEqual(full);
      } else if (full instanceof CreateActionDto) {
        // Allowed only for what the fast path leaves to the full pipe on purpose: not a plain
        // object, or the prototype keys the full pipe strips before it validates.
        const leftToFullPipe = Object.getPrototypeOf(value) !== Object.prototype || Object.hasOwn(value as object, 'constructor');
        expect([JSON.stringify(value), leftToFullPipe]).toEqual([JSON.stringify(value), true]);
      }
    }
    expect(accepted).toBeGreaterThan(30);
  });

  it('keeps the payload object itself and normalises lockId as the full pipe does', () => {
    const payload = { toString: 'kept' };
    const dto = CreateActionDto.validOrUndefined({ type: 'a', lockId: '007', payload })!;
    expect(dto.payload).toBe(payload);
    expect(dto.lockId).toBe('7');
    expect(CreateActionDto.validOrUndefined({ type: 'a', lockId: 26 })!.lockId).toBe('26');
  });

  it('batches: the same instance as the full pipe, and one bad item sends the whole batch to the full pipe, which names it', async () => {
    const items = cases().filter((c) => CreateActionDto.validOrUndefined(c) !== undefined);
    const good = { actions: items };
    const fast = CreateActionsBatchDto.validOrUndefined(good);
    expect(fast).toBeInstanceOf(CreateActionsBatchDto);
    expect(fast).toStrictEqual(await fullPipe(good, CreateActionsBatchDto));

    const bad = { actions: [...items.slice(0, 17), { ...base, lockId: 'x' }, ...items.slice(17)] };
    expect(CreateActionsBatchDto.validOrUndefined(bad)).toBeUndefined();
    await expect(pipe.transform(bad, body(CreateActionsBatchDto))).rejects.toMatchObject({
      response: { message: ['actions.17.lockId must be a decimal integer string, e.g. "26"'] },
    });
  });

  it('leaves the batch limits and unknown keys to the full pipe', async () => {
    for (const value of [{ actions: [] }, { actions: Array.from({ length: 1001 }, () => base) }, { actions: [base], extra: 1 }, { actions: {} }, {}]) {
      expect(CreateActionsBatchDto.validOrUndefined(value)).toBeUndefined();
      expect(await fullPipe(value, CreateActionsBatchDto)).toHaveProperty('refused');
    }
    expect(CreateActionsBatchDto.validOrUndefined({ actions: Array.from({ length: 1000 }, () => base) })?.actions).toHaveLength(1000);
  });

  it('is not inherited: a subclass with more rules goes through the full pipe', async () => {
    class Stricter extends CreateActionDto {}
    const out = await pipe.transform({ type: 'a' }, body(Stricter));
    expect(out).toBeInstanceOf(Stricter);
  });
});
