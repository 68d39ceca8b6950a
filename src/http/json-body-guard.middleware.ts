import type { NextFunction, Request, Response } from 'express';

/** Deepest nesting accepted in a JSON body (a payload of depth ~60 inside a batch item). */
export const MAX_JSON_DEPTH = 64;

/** Keys that would reach an object's prototype machinery rather than a DTO field. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Why `body` is not acceptable, naming the field path, or null when it is fine.
 * Checks the parsed values, never the JSON text: a real NUL character (U+0000)
 * in a string or key is refused (PostgreSQL's text and jsonb cannot hold it),
 * while the six characters of an escaped backslash followed by `u0000` are
 * ordinary data.
 */
export function jsonBodyProblem(body: unknown): string | null {
  // Iterative walk: a deeply nested body must not overflow the stack here or later.
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: body, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    const name = path || 'body';
    if (depth > MAX_JSON_DEPTH) return `${name} is nested deeper than ${MAX_JSON_DEPTH} levels`;
    if (typeof value === 'number' && !Number.isFinite(value)) return `${name} must be a finite number`;
    if (typeof value === 'string' && !value.isWellFormed()) return `${name} contains an unpaired UTF-16 surrogate`;
    if (typeof value === 'string' && value.includes('\u0000')) return `${name} contains the NUL character (U+0000), which PostgreSQL cannot store`;
    if (value === null || typeof value !== 'object') continue;
    const dtoLevel = path === '' || /^actions\.\d+$/.test(path);
    for (const [key, child] of Object.entries(value)) {
      const childPath = path ? `${path}.${key}` : key;
      if (!key.isWellFormed()) return `${name} has a key with an unpaired UTF-16 surrogate`;
      if (key.includes('\u0000')) return `${name} has a key with the NUL character (U+0000), which PostgreSQL cannot store`;
      if (dtoLevel && RESERVED_KEYS.has(key)) return `property ${childPath} should not exist`;
      stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return null;
}

/**
 * Express middleware, after the JSON body parser and before Nest's pipes:
 * - a request that carries a body must say `Content-Type: application/json` (else 415);
 * - the parsed body must have no non-finite number (1e400 parses to Infinity and
 *   would be stored as null), no unpaired UTF-16 surrogate and no NUL character
 *   (PostgreSQL rejects both), nesting no deeper than {@link MAX_JSON_DEPTH} (class-transformer
 *   would overflow the stack), and no `__proto__`/`constructor` field (else 400).
 * Answers with Nest's error body; the message names the field.
 */
export function jsonBodyGuard() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody) return next();
    if (!req.is('application/json')) {
      res.status(415).json({ statusCode: 415, message: 'Content-Type must be application/json', error: 'Unsupported Media Type' });
      return;
    }
    const problem = jsonBodyProblem(req.body);
    if (problem) {
      res.status(400).json({ statusCode: 400, message: [problem], error: 'Bad Request' });
      return;
    }
    next();
  };
}
