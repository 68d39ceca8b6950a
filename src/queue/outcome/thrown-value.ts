import { inspect } from 'node:util';
import { PermanentFailureError } from '../../handlers/permanent-failure.error';

/** Longest stored error message (characters): the first 3 000 and the last 1 000 are kept. */
export const MAX_ERROR_MESSAGE_CHARS = 4_000;
const MESSAGE_HEAD_CHARS = 3_000;
const MESSAGE_TAIL_CHARS = 1_000;
/** Longest stored stack (characters, from its start). */
export const MAX_ERROR_STACK_CHARS = 8_000;

/** A thrown value made readable and storable. */
export interface DescribedError {
  /** `Name: message` for an Error (with its own fields as JSON), JSON for other objects. */
  message: string;
  /** The Error's stack frames (without the message line), or null. */
  stack: string | null;
}

/**
 * Describes anything a handler may throw, and never throws itself: an
 * `Error` as `TypeError: message` plus its own fields (`{"code":"ECONNRESET"}`),
 * other objects as JSON with their fields (a null-prototype object, or one
 * whose `toString` throws, included), strings as they are, anything else as
 * `String(value)` or `util.inspect`. NUL characters are dropped and unpaired
 * surrogates replaced (PostgreSQL text cannot hold them); a long message keeps
 * its head and tail (see {@link MAX_ERROR_MESSAGE_CHARS}), a stack its head.
 *
 * @param value what was thrown (or the reason a promise rejected with).
 * @returns message and stack, both bounded.
 */
export function describeThrown(value: unknown): DescribedError {
  let message: string;
  let stack: string | null = null;
  try {
    if (value instanceof Error) {
      const name = safeString(() => value.name) || 'Error';
      const text = safeString(() => value.message);
      const fields = ownFields(value, text);
      message = `${name === 'Error' && text ? '' : `${name}: `}${text}${fields ? ` ${fields}` : ''}`;
      // The frames only: V8 puts "Name: message" first, which `message` already holds.
      const full = safeString(() => value.stack);
      const header = `${name}: ${text}`;
      stack = (full.startsWith(header) ? full.slice(header.length).replace(/^\n/, '') : full) || null;
    } else if (typeof value === 'string') {
      message = value;
    } else if (typeof value === 'object' && value !== null) {
      // JSON shows the fields; an object whose fields JSON drops (functions) is inspected instead.
      const json = safeJson(value);
      const lostFields = json === '{}' && safeOwnKeys(value) > 0;
      message = json !== null && !lostFields ? json : safeString(() => inspect(value, { depth: 4 }));
    } else {
      message = safeString(() => String(value));
    }
  } catch {
    message = '';
  }
  return {
    message: bounded(clean(message) || 'unknown error (an empty value was thrown)'),
    stack: stack === null ? null : clean(stack).slice(0, MAX_ERROR_STACK_CHARS),
  };
}

/**
 * Own enumerable fields of an Error beyond name, message and stack that its
 * message does not already show, as JSON (e.g. `{"code":"ECONNRESET"}`), or ''.
 */
function ownFields(error: Error, message: string): string {
  try {
    const extra = Object.fromEntries(
      Object.entries(error).filter(([k, v]) => !['name', 'message', 'stack'].includes(k) && !(isPrimitive(v) && message.includes(String(v)))),
    );
    return Object.keys(extra).length > 0 ? (safeJson(extra) ?? '') : '';
  } catch {
    return '';
  }
}

function isPrimitive(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}

function safeJson(value: object): string | null {
  try {
    const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    return typeof text === 'string' ? text : null;
  } catch {
    return null;
  }
}

function safeOwnKeys(value: object): number {
  try {
    return Reflect.ownKeys(value).length;
  } catch {
    return 0;
  }
}

function safeString(read: () => unknown): string {
  try {
    const v = read();
    return typeof v === 'string' ? v : v === undefined || v === null ? '' : inspect(v);
  } catch {
    return '';
  }
}

function clean(text: string): string {
  return text.replace(/\u0000/g, '').toWellFormed();
}

function bounded(text: string): string {
  if (text.length <= MAX_ERROR_MESSAGE_CHARS) return text;
  const omitted = text.length - MESSAGE_HEAD_CHARS - MESSAGE_TAIL_CHARS;
  return `${text.slice(0, MESSAGE_HEAD_CHARS)} … [${omitted} characters omitted] … ${text.slice(-MESSAGE_TAIL_CHARS)}`;
}

/**
 * Whether a thrown value asks for no retry: a PermanentFailureError, or any
 * error named so (one from another copy of this package, or rebuilt after
 * crossing a thread), in process and in a handler thread alike. Never throws
 * (a hostile value, such as a Proxy whose traps throw, is simply not one).
 */
export function isPermanentFailure(error: unknown): boolean {
  try {
    if (error instanceof PermanentFailureError) return true;
    return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'PermanentFailureError';
  } catch {
    return false;
  }
}
