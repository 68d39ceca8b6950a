import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

/** Deepest nesting accepted in a JSON body (a payload of depth ~60 inside a batch item). */
export const MAX_JSON_DEPTH = 64;

/** Marks a checked request, so a second check on its route (route-scoped after a global one) does not walk the body again. */
const GUARDED = Symbol('actions:json-body-guarded');

/**
 * Keys that reach an object's prototype machinery: never a DTO field, and
 * refused in a payload too, where Nest's ValidationPipe would silently delete them.
 */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The field path of `key` under `parentPath` ('' at the top): `actions.3.lockId`. */
const joinPath = (parentPath: string, key: string): string => (parentPath ? `${parentPath}.${key}` : key);

/**
 * Why `body` is not acceptable, naming the field path, or null when it is fine.
 * Checks the parsed values, never the JSON text: a real NUL character (U+0000)
 * in a string or key is refused (PostgreSQL's text and jsonb cannot hold it),
 * while the six characters of an escaped backslash followed by `u0000` are
 * ordinary data.
 */
export function jsonBodyProblem(body: unknown): string | null {
  // Iterative walk: a deeply nested body must not overflow the stack here or later.
  // The nodes to visit are parallel stacks of (value, depth, key, the parent's
  // path); a node's own path is spelled only for an object (its children need
  // it) or for a message. A batch of 1 000 actions allocated a path string and
  // a frame object per node before: about a fifth of its Node CPU per item
  // (profile of 2026-12-03).
  const values: unknown[] = [body];
  const depths: number[] = [0];
  const keys: string[] = [''];
  const parentPaths: string[] = [''];
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    const key = keys.pop()!;
    const parentPath = parentPaths.pop()!;
    if (depth > MAX_JSON_DEPTH) return `${joinPath(parentPath, key) || 'body'} is nested deeper than ${MAX_JSON_DEPTH} levels`;
    if (typeof value === 'number' && !Number.isFinite(value)) return `${joinPath(parentPath, key) || 'body'} must be a finite number`;
    if (typeof value === 'string' && !value.isWellFormed()) return `${joinPath(parentPath, key) || 'body'} contains an unpaired UTF-16 surrogate`;
    if (typeof value === 'string' && value.includes('\u0000')) {
      return `${joinPath(parentPath, key) || 'body'} contains the NUL character (U+0000), which PostgreSQL cannot store`;
    }
    if (value === null || typeof value !== 'object') continue;
    const path = joinPath(parentPath, key);
    const name = path || 'body';
    const dtoLevel = path === '' || /^actions\.\d+$/.test(path);
    const record = value as Record<string, unknown>;
    for (const childKey of Object.keys(record)) {
      if (!childKey.isWellFormed()) return `${name} has a key with an unpaired UTF-16 surrogate`;
      if (childKey.includes('\u0000')) return `${name} has a key with the NUL character (U+0000), which PostgreSQL cannot store`;
      if (RESERVED_KEYS.has(childKey)) {
        const childPath = path ? `${path}.${childKey}` : childKey;
        if (dtoLevel) return `property ${childPath} should not exist`;
        // Refused, not dropped: Nest's ValidationPipe deletes these keys wherever they are, payload included.
        return `${childPath} uses a reserved key name (__proto__, constructor, prototype): rename it`;
      }
      values.push(record[childKey]);
      depths.push(depth + 1);
      keys.push(childKey);
      parentPaths.push(path);
    }
  }
  return null;
}

/** The message of the 400 for a body whose bytes are not valid UTF-8. */
export const INVALID_UTF8_MESSAGE = 'request body is not valid UTF-8: it holds a byte sequence that is not a character (bytes such as 0xFF)';

/**
 * Why the raw bytes of a JSON body are not text in their charset, or null
 * when they are. The body parser would otherwise decode an invalid sequence
 * to U+FFFD and the request would store replacement characters in place of
 * what the client sent.
 *
 * @param body the raw body, after any Content-Encoding was undone.
 * @param charset the charset of its Content-Type, lower case; default utf-8.
 */
export function bodyEncodingProblem(body: Buffer, charset = 'utf-8'): string | null {
  if (charset === 'utf-8' || charset === 'utf8') return isUtf8(body) ? null : INVALID_UTF8_MESSAGE;
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder(charset, { fatal: true });
  } catch {
    return null; // A charset Node does not know: the body parser answers 415 for it.
  }
  try {
    decoder.decode(body);
    return null;
  } catch {
    return `request body is not valid ${charset.toUpperCase()}`;
  }
}

/**
 * The `verify` hook of the JSON body parser (express.json / body-parser):
 * refuses a body that is not valid text in its charset ({@link bodyEncodingProblem})
 * before it is decoded, with 400 and the reason (the parser's error handler answers).
 * @throws Error with `status` 400 and `type` 'encoding.invalid'.
 */
export function verifyJsonBodyEncoding(_req: IncomingMessage, _res: unknown, body: Buffer, charset?: string): void {
  const problem = bodyEncodingProblem(body, charset?.toLowerCase());
  if (problem) throw Object.assign(new Error(problem), { status: 400, type: 'encoding.invalid' });
}

/** Why a request's body is refused (415 or 400, with the message to answer), or null when it passes. */
export interface JsonBodyRejection {
  status: 400 | 415;
  message: string;
}

/**
 * Checks a request after the JSON body parser and before Nest's pipes:
 * - a request that carries a body must say `Content-Type: application/json` (else 415);
 * - the parsed body must have no non-finite number (1e400 parses to Infinity and
 *   would be stored as null), no unpaired UTF-16 surrogate and no NUL character
 *   (PostgreSQL rejects both), nesting no deeper than {@link MAX_JSON_DEPTH} (class-transformer
 *   would overflow the stack), and no `__proto__`, `constructor` or `prototype` key at any
 *   depth, payload included (else 400);
 * - when the raw body was kept (`req.rawBody`, Nest's `rawBody: true`), its bytes must be
 *   valid in their charset (else 400; the service starter's parser checks this itself).
 * With `maxPayloadBytes`, a payload (`payload`, or `actions.N.payload`) whose
 * compact JSON is longer is refused first (400, MAX_PAYLOAD_BYTES), before any walk.
 * A request is checked once, however many times this is called for it.
 */
export function jsonBodyRejection(req: Request, maxPayloadBytes?: number): JsonBodyRejection | null {
  const marked = req as Request & { [GUARDED]?: true };
  if (marked[GUARDED]) return null;
  marked[GUARDED] = true;
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) return null;
  if (!req.is('application/json')) return { status: 415, message: 'Content-Type must be application/json' };
  // Where the raw bytes were kept (a host app created with rawBody: true), the
  // queue's routes can still see bytes its parser decoded to U+FFFD.
  const raw = (req as Request & { rawBody?: unknown }).rawBody;
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  const encoding = Buffer.isBuffer(raw) ? bodyEncodingProblem(raw, charset) : null;
  if (encoding) return { status: 400, message: encoding };
  // Sizes before structure: an oversize payload is refused after one native
  // JSON.stringify, never walked key by key.
  const oversize = maxPayloadBytes === undefined ? null : oversizePayload(req.body, maxPayloadBytes);
  if (oversize) return { status: 400, message: oversize };
  const problem = jsonBodyProblem(req.body);
  if (problem) return { status: 400, message: problem };
  markCheckedPayloads(req.body);
  return null;
}

/** The payloads of a body, with the field prefix of each: `{ payload }` or `{ actions: [{ payload }] }`. */
function payloadsOf(body: unknown): { prefix: string; payload: object }[] {
  const out: { prefix: string; payload: object }[] = [];
  const add = (item: unknown, prefix: string) => {
    const payload = item !== null && typeof item === 'object' ? (item as { payload?: unknown }).payload : undefined;
    if (payload !== null && typeof payload === 'object') out.push({ prefix, payload });
  };
  add(body, '');
  const actions = body !== null && typeof body === 'object' ? (body as { actions?: unknown }).actions : undefined;
  if (Array.isArray(actions)) actions.forEach((item, i) => add(item, `actions.${i}.`));
  return out;
}

/** The compact JSON text of payloads this guard measured, for the service to store without writing it again. */
const PAYLOAD_TEXTS = new WeakMap<object, string>();

/**
 * The 400 message for the first payload of `body` whose compact JSON is over
 * `maxPayloadBytes` (MAX_PAYLOAD_BYTES), or null. One JSON.stringify each; a
 * payload too deep for it is left to the structural walk, which says so.
 */
function oversizePayload(body: unknown, maxPayloadBytes: number): string | null {
  for (const { prefix, payload } of payloadsOf(body)) {
    let text: string;
    try {
      text = JSON.stringify(payload);
    } catch {
      continue;
    }
    const size = Buffer.byteLength(text);
    if (size > maxPayloadBytes) return `${prefix}payload is ${size} bytes; the limit is ${maxPayloadBytes} (MAX_PAYLOAD_BYTES)`;
    PAYLOAD_TEXTS.set(payload, text);
  }
  return null;
}

/** The compact JSON text of `payload` when the guard measured this very object (see {@link oversizePayload}), else undefined. */
export function measuredPayloadText(payload: object): string | undefined {
  return PAYLOAD_TEXTS.get(payload);
}

/** Payload objects of request bodies that passed {@link jsonBodyProblem}: the service need not walk them again. */
const CHECKED_PAYLOADS = new WeakSet<object>();

/** Records the payloads of a checked body. */
function markCheckedPayloads(body: unknown): void {
  for (const { payload } of payloadsOf(body)) CHECKED_PAYLOADS.add(payload);
}

/**
 * Whether `payload` is the very object of a request body this guard checked
 * (so it passed every rule of {@link jsonBodyProblem}): the service then walks
 * it no second time. An object the caller built in process was never checked.
 */
export function checkedByJsonBodyGuard(payload: object): boolean {
  return CHECKED_PAYLOADS.has(payload);
}

/**
 * Express middleware applying {@link jsonBodyRejection} to every route (the
 * service starter installs it after the body parser, with MAX_PAYLOAD_BYTES
 * so an oversize payload is refused before it is walked); answers with Nest's
 * error body, the message naming the field. The queue's own routes also
 * carry the check (JsonBodyInterceptor), for apps embedding the module.
 */
export function jsonBodyGuard(maxPayloadBytes?: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const rejection = jsonBodyRejection(req, maxPayloadBytes);
    if (rejection?.status === 415) {
      res.status(415).json({ statusCode: 415, message: rejection.message, error: 'Unsupported Media Type' });
      return;
    }
    if (rejection) {
      res.status(400).json({ statusCode: 400, message: [rejection.message], error: 'Bad Request' });
      return;
    }
    next();
  };
}
