import type { Request } from 'express';

/** Paths that never need the API key: load balancers and orchestrators probe them. */
export const OPEN_PATHS = ['/health', '/health/ready'];

/** The key a request presents: `Authorization: Bearer <key>`, else `x-api-key: <key>`. */
export function presentedApiKey(req: Pick<Request, 'headers'>): string | undefined {
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const match = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (match) return match[1];
  }
  const header = req.headers['x-api-key'];
  return typeof header === 'string' ? header : undefined;
}
