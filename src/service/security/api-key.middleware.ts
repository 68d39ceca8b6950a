import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { OPEN_PATHS, presentedApiKey } from '../../http/api-key';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Whether `presented` equals `expected`, in time independent of where they
 * differ. Both are hashed first so that `timingSafeEqual` sees equal lengths
 * and the key's length does not leak either.
 */
export function apiKeyMatches(expected: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  return timingSafeEqual(digest(expected), digest(presented));
}

/** Whether `path` is `prefix` or below it (`/ui`, `/ui/`, `/ui/assets/x.js`; not `/uix`). */
const isUnder = (path: string, prefix: string): boolean => path === prefix || path.startsWith(`${prefix}/`);

/**
 * Express middleware requiring the API key on every path except
 * {@link OPEN_PATHS}: the REST routes, `/metrics` and `/docs` alike. It runs
 * before routing (it is installed with `app.use`), so it also covers routes
 * that are not Nest controllers (the Swagger UI). Answers 401 with Nest's
 * standard error body.
 *
 * @param apiKey the expected key (the API_KEY setting).
 * @param staticPrefixes paths whose GET and HEAD requests pass without the key
 *   because they serve only static files that hold no data (the dashboard at
 *   `/ui`, whose page then sends the key with every API call it makes).
 */
export function apiKeyMiddleware(apiKey: string, staticPrefixes: string[] = []) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (OPEN_PATHS.includes(req.path.replace(/\/+$/, '') || '/')) return next();
    if ((req.method === 'GET' || req.method === 'HEAD') && staticPrefixes.some((prefix) => isUnder(req.path, prefix))) return next();
    if (apiKeyMatches(apiKey, presentedApiKey(req))) return next();
    res
      .status(401)
      .set('WWW-Authenticate', 'Bearer')
      .json({ statusCode: 401, message: 'API key required: send Authorization: Bearer <key> or x-api-key: <key>', error: 'Unauthorized' });
  };
}
