import { PermanentFailureError } from '../../handlers/permanent-failure.error';
import { stringifyJson } from '../../http/json-text';
import { describeThrown } from './thrown-value';

/** A result serialised already (by a handler thread): stored as is. */
export class SerializedResult {
  constructor(readonly json: string) {}
}

/**
 * A handler's return value as the JSON text to store (serialised once, here).
 * `undefined` is stored as null; NUL characters are dropped from strings
 * (PostgreSQL's jsonb cannot hold them).
 *
 * @throws PermanentFailureError when JSON cannot represent the value (a
 *   function, a Symbol, a BigInt, a cycle), or a key or string holds NUL (keys)
 *   or an unpaired UTF-16 surrogate, which jsonb refuses (and the whole
 *   finishing batch would fail with it).
 */
export function toResultJson(result: unknown): string {
  if (result instanceof SerializedResult) return result.json;
  if (typeof result === 'function' || typeof result === 'symbol') {
    throw new PermanentFailureError(`handler returned a ${typeof result}, which JSON cannot represent; return a JSON value`);
  }
  let text: string | undefined;
  // Fast path: JSON.stringify escapes a NUL as \u0000 and a lone surrogate as
  // \udXXX; without such an escape the text is what jsonb stores. Otherwise
  // (or on a backslash-u in the data itself) the checked path below decides.
  try {
    text = JSON.stringify(result);
  } catch (error) {
    // Nested deeper than JSON.stringify can recurse: the same text, written iteratively.
    text = error instanceof RangeError ? stringifyOrUndefined(result) : undefined;
  }
  if (text !== undefined && !/\\u(0000|d[89a-f])/i.test(text)) return text;
  if (text === undefined && result === undefined) return 'null';
  try {
    text = JSON.stringify(result, (key: string, value: unknown) => {
      if (!key.isWellFormed() || key.includes('\u0000')) throw new PermanentFailureError('handler result has a key that jsonb cannot store');
      if (typeof value !== 'string') return value;
      if (!value.isWellFormed()) throw new PermanentFailureError('handler result contains an unpaired UTF-16 surrogate');
      return value.includes('\u0000') ? value.replace(/\u0000/g, '') : value;
    });
  } catch (error) {
    if (error instanceof PermanentFailureError) throw error;
    // A toJSON may throw anything (null, a string, a Proxy): describe it, never read `.message` off it.
    throw new PermanentFailureError(`handler result is not JSON-serialisable: ${describeThrown(error).message}`);
  }
  return text ?? 'null';
}

/**
 * Whether the JSON text of `value` would be longer than `limit` characters,
 * found without writing it: a walk with an explicit stack that adds up
 * strings, keys, numbers and punctuation (a lower bound of the text's length,
 * escapes aside) and stops as soon as it passes `limit`. Cycles and `toJSON`
 * are left to the serialiser that runs after it.
 *
 * @param value a handler's result.
 * @param limit characters.
 * @returns true when the text is certainly longer than `limit`.
 */
export function jsonLengthExceeds(value: unknown, limit: number): boolean {
  const stack: unknown[] = [value];
  const seen = new Set<object>();
  let length = 0;
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') length += item.length + 2;
    else if (item === null || typeof item !== 'object') length += 4;
    else if (!seen.has(item)) {
      seen.add(item);
      length += 2;
      if (Array.isArray(item)) {
        for (const child of item) stack.push(child);
        length += item.length;
      } else {
        for (const [key, child] of Object.entries(item)) {
          length += key.length + 4;
          stack.push(child);
        }
      }
    }
    if (length > limit) return true;
  }
  return false;
}

/** {@link stringifyJson}, or undefined where it throws (a BigInt, a cycle): the checked path then names the problem. */
function stringifyOrUndefined(value: unknown): string | undefined {
  try {
    return stringifyJson(value);
  } catch {
    return undefined;
  }
}
