import { EnqueueInput } from '../enqueue-input.interface';
import { EnqueueRules, NormalisedEnqueueInput, normaliseEnqueueInput, repeatedIdempotencyKeyProblem } from './enqueue-input.normaliser';

/** A queue with two handlers, one capping its attempts at 3. */
const rules: EnqueueRules = {
  hasHandler: (type) => type === 'a.run' || type === 'b.run',
  knownTypes: () => ['a.run', 'b.run'],
  handlerMaxAttempts: (type) => (type === 'b.run' ? 3 : undefined),
  maxPayloadBytes: 64,
  defaultMaxAttempts: 5,
};

const normalised = (input: EnqueueInput, field = ''): NormalisedEnqueueInput => {
  const out = normaliseEnqueueInput(input, field, rules);
  if (out.problem !== undefined) throw new Error(`expected no problem, got: ${out.problem}`);
  return out.input;
};
const problemOf = (input: EnqueueInput, field = ''): string | undefined => normaliseEnqueueInput(input, field, rules).problem;

describe('normaliseEnqueueInput', () => {
  it('fills the defaults: no group, an empty payload, now, the default attempts, block', () => {
    expect(normalised({ type: 'a.run' })).toEqual({
      lockId: null,
      groupKey: null,
      type: 'a.run',
      payloadText: '{}',
      runAt: null,
      maxAttempts: 5,
      onFailure: 'block',
      idempotencyKey: null,
      tenant: 'default',
    });
  });

  it('keeps a valid tenant and names the field of a bad one (docs/tenants.md)', () => {
    expect(normalised({ type: 'a.run', tenant: 'acme:eu-1' }).tenant).toBe('acme:eu-1');
    expect(normalised({ type: 'a.run', tenant: null }).tenant).toBe('default');
    expect(problemOf({ type: 'a.run', tenant: 'acme corp' }, 'actions.2.')).toMatch(/^actions\.2\.tenant must be 1\.\.128 characters/);
    expect(problemOf({ type: 'a.run', tenant: 'x'.repeat(129) })).toMatch(/^tenant must be/);
    expect(problemOf({ type: 'a.run', tenant: 7 as unknown as string })).toBe('tenant must be a string');
  });

  it('writes a lock id in canonical decimal form, from a string or a safe integer', () => {
    expect(normalised({ type: 'a.run', lockId: '007' }).lockId).toBe('7');
    expect(normalised({ type: 'a.run', lockId: -12 }).lockId).toBe('-12');
    expect(normalised({ type: 'a.run', lockId: '9223372036854775807' }).lockId).toBe('9223372036854775807');
  });

  it('writes runAt as ISO text in UTC, from a string with an offset or a Date', () => {
    expect(normalised({ type: 'a.run', runAt: '2030-01-01T09:00+0100' }).runAt).toBe('2030-01-01T08:00:00.000Z');
    expect(normalised({ type: 'a.run', runAt: new Date(Date.UTC(2030, 0, 1)) }).runAt).toBe('2030-01-01T00:00:00.000Z');
  });

  it("caps maxAttempts at the handler's cap, so the number shown is the number enforced", () => {
    expect(normalised({ type: 'b.run', maxAttempts: 10 }).maxAttempts).toBe(3);
    expect(normalised({ type: 'b.run' }).maxAttempts).toBe(3);
    expect(normalised({ type: 'a.run', maxAttempts: 10 }).maxAttempts).toBe(10);
  });

  it('names the field, with the batch prefix, for each rule', () => {
    expect(problemOf({ type: 'nope' }, 'actions.2.')).toBe('actions.2.type "nope" has no registered handler (known: a.run, b.run)');
    expect(problemOf({ type: 'a.run', lockId: 'x' })).toMatch(/^lockId /);
    expect(problemOf({ type: 'a.run', groupKey: '' })).toMatch(/^groupKey /);
    expect(problemOf({ type: 'a.run', lockId: '1', groupKey: 'k' })).toMatch(/lockId.*groupKey|groupKey.*lockId/);
    expect(problemOf({ type: 'a.run', payload: [] as unknown as Record<string, unknown> })).toBe('payload must be a JSON object');
    expect(problemOf({ type: 'a.run', runAt: '2030-01-01T09:00:00' }, 'actions.1.')).toMatch(/^actions\.1\.runAt must /);
    expect(problemOf({ type: 'a.run', idempotencyKey: 'k\u0000' })).toBe('idempotencyKey must be a string without the NUL character');
  });

  it('refuses a payload over the byte limit by its size, naming the limit', () => {
    expect(problemOf({ type: 'a.run', payload: { text: 'x'.repeat(100) } })).toBe(
      `payload is ${'{"text":""}'.length + 100} bytes; the limit is 64 (MAX_PAYLOAD_BYTES)`,
    );
  });

  it('refuses a real NUL character in the payload and accepts the escaped six characters', () => {
    expect(problemOf({ type: 'a.run', payload: { x: 'a\u0000b' } })).toMatch(/^payload: x contains the NUL character/);
    expect(normalised({ type: 'a.run', payload: { x: '\\u0000' } }).payloadText).toBe('{"x":"\\\\u0000"}');
  });

  it('says a payload nested too deeply for JSON.stringify cannot be stored, within the size limit', () => {
    let deep: unknown = {};
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const out = normaliseEnqueueInput({ type: 'a.run', payload: { d: deep } }, '', { ...rules, maxPayloadBytes: 1 << 20 });
    expect(out.problem).toMatch(/^payload/);
  });
});

describe('repeatedIdempotencyKeyProblem', () => {
  const withKey = (key: string | null) => normalised({ type: 'a.run', ...(key === null ? {} : { idempotencyKey: key }) });

  it('names a key used twice in one batch', () => {
    expect(repeatedIdempotencyKeyProblem([withKey('k1'), withKey(null), withKey('k1')])).toBe('actions: idempotencyKey "k1" appears twice in one batch');
  });

  it('accepts distinct keys and any number of inputs without one', () => {
    expect(repeatedIdempotencyKeyProblem([withKey('k1'), withKey(null), withKey(null), withKey('k2')])).toBeNull();
  });
});
