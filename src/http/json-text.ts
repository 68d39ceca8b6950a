/*
 * JSON text of values of any depth. JSON.parse is iterative in V8, so a
 * payload nested 8 000 levels deep (PostgreSQL accepts it from a SQL
 * producer) reads back fine, but JSON.stringify (and structured cloning) are
 * recursive and overflow the stack on it ("Maximum call stack size
 * exceeded"). This file imports nothing, so the dashboard uses it too.
 */

/** One container being written: its values still to come. */
type Frame = { array: unknown[]; next: number } | { object: Record<string, unknown>; keys: string[]; next: number; wrote: boolean };

/**
 * The JSON text of `value`, as `JSON.stringify(value)` gives it (same output,
 * `toJSON` honoured, `undefined` / functions / symbols left out of objects and
 * `null` in arrays), at any nesting depth: the native call first, and on a
 * stack overflow a walk with an explicit stack.
 *
 * @param value any JSON-representable value.
 * @returns the text, or undefined when `value` itself is not representable (as JSON.stringify).
 * @throws TypeError for a BigInt or a circular structure, as JSON.stringify.
 */
export function stringifyJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (error) {
    // Only the stack overflow of a deep value is worth a second, iterative pass.
    if (!(error instanceof RangeError) || !/call stack/i.test(error.message)) throw error;
  }
  return stringifyIteratively(value);
}

/** `value` after its `toJSON` (as JSON.stringify calls it, with the key). */
function jsonValueOf(value: unknown, key: string): unknown {
  const toJSON = (value as { toJSON?: unknown } | null | undefined)?.toJSON;
  return typeof toJSON === 'function' ? (toJSON as (key: string) => unknown).call(value, key) : value;
}

/** Whether JSON.stringify writes `value` at all (it skips these in objects, writes null for them in arrays). */
function representable(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

function stringifyIteratively(root: unknown): string | undefined {
  const out: string[] = [];
  const stack: Frame[] = [];
  // Containers on the current path: a cycle is refused, as JSON.stringify does.
  const open = new Set<object>();
  /** Writes a representable value; a container is entered, its content written by the loop. */
  const write = (value: unknown): void => {
    if (value === null || typeof value !== 'object') {
      // Primitives: JSON.stringify is not recursive for them (NaN → null, BigInt → TypeError).
      out.push(JSON.stringify(value));
      return;
    }
    if (value instanceof Number || value instanceof String || value instanceof Boolean) {
      out.push(JSON.stringify(value));
      return;
    }
    if (open.has(value)) throw new TypeError('Converting circular structure to JSON');
    open.add(value);
    if (Array.isArray(value)) {
      out.push('[');
      stack.push({ array: value, next: 0 });
    } else {
      out.push('{');
      stack.push({ object: value as Record<string, unknown>, keys: Object.keys(value), next: 0, wrote: false });
    }
  };
  const first = jsonValueOf(root, '');
  if (!representable(first)) return undefined;
  write(first);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if ('array' in frame) {
      if (frame.next >= frame.array.length) {
        out.push(']');
        open.delete(frame.array);
        stack.pop();
        continue;
      }
      if (frame.next > 0) out.push(',');
      const item = jsonValueOf(frame.array[frame.next], String(frame.next));
      frame.next++;
      if (representable(item)) write(item);
      else out.push('null');
    } else {
      if (frame.next >= frame.keys.length) {
        out.push('}');
        open.delete(frame.object);
        stack.pop();
        continue;
      }
      const key = frame.keys[frame.next++];
      const item = jsonValueOf(frame.object[key], key);
      if (!representable(item)) continue;
      out.push(frame.wrote ? ',' : '', JSON.stringify(key), ':');
      frame.wrote = true;
      write(item);
    }
  }
  return out.join('');
}
