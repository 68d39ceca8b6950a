import type { NextFunction, Request, Response } from 'express';
import type { ServiceSettings } from '../../config/settings';
import { allowedHostPredicate, hostNameOf } from './allowed-hosts';
import { OPEN_PATHS } from '../../http/api-key';

/** Methods that change nothing: a browser may send them cross-site, and reading the answer is what CORS forbids. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `Sec-Fetch-Site` values of a request the page of this very service (or the user typing a URL) made. */
const SAME_ORIGIN_FETCH = new Set(['same-origin', 'none']);

const refuse = (res: Response, status: 403 | 415, message: string): void => {
  res.status(status).json({ statusCode: status, message, error: status === 403 ? 'Forbidden' : 'Unsupported Media Type' });
};

/**
 * Express middleware refusing `Host` names the service does not serve (403),
 * so a web page whose own name was rebound to this machine's address (DNS
 * rebinding) cannot use the API as its own origin. Which names pass:
 * {@link allowedHostPredicate} (ALLOWED_HOSTS; by default with API_KEY any,
 * without it the loopback names, HOST and the address the request arrived on).
 * The health checks are never refused (probes call by address).
 */
export function hostGuard(settings: Pick<ServiceSettings, 'ALLOWED_HOSTS' | 'API_KEY' | 'HOST'>) {
  const allowed = allowedHostPredicate(settings);
  return (req: Request, res: Response, next: NextFunction): void => {
    const header = req.headers.host;
    if (header === undefined || OPEN_PATHS.includes(req.path.replace(/\/+$/, '') || '/')) return next();
    const host = hostNameOf(header);
    if (allowed(host, req.socket.localAddress)) return next();
    refuse(res, 403, `Host "${host}" is not served here (set ALLOWED_HOSTS to answer it); refused against DNS rebinding`);
  };
}

/**
 * Why a state-changing request looks like another site's page made it
 * (status and message), or null. Used without API_KEY, where nothing else
 * stops a page the operator visits from cancelling or retrying actions:
 *
 * - a `Content-Type` other than `application/json`, even with no body (415):
 *   HTML forms and preflight-free `fetch` can send only form or text types,
 *   and a JSON request from another origin needs a CORS preflight the service
 *   does not grant;
 * - `Sec-Fetch-Site` other than `same-origin` / `none` (403);
 * - an `Origin` that is neither this service's own (same host and port as
 *   `Host`) nor listed in CORS_ORIGINS (403); `Origin: null` included.
 *
 * A request without `Origin`, `Sec-Fetch-Site` and `Content-Type` (curl, the
 * client library, any non-browser program; a body-less cancel or retry) passes:
 * browsers send `Origin` with every POST.
 */
export function crossSiteProblem(req: Pick<Request, 'method' | 'headers'>, corsOrigins: string[]): { status: 403 | 415; message: string } | null {
  if (SAFE_METHODS.has(req.method)) return null;
  const contentType = req.headers['content-type'];
  if (contentType !== undefined && !/^application\/json\s*(;|$)/i.test(contentType.trim())) {
    return { status: 415, message: 'Content-Type must be application/json (without API_KEY, a request that changes state is refused in any other type)' };
  }
  const origin = req.headers.origin;
  const listed = origin !== undefined && (corsOrigins.includes('*') || corsOrigins.includes(origin));
  const fetchSite = req.headers['sec-fetch-site'];
  if (typeof fetchSite === 'string' && !SAME_ORIGIN_FETCH.has(fetchSite) && !listed) {
    return {
      status: 403,
      message: `cross-site request refused (Sec-Fetch-Site: ${fetchSite}); without API_KEY only this service's own pages may change state`,
    };
  }
  if (origin !== undefined && !listed && !sameOrigin(origin, req.headers.host)) {
    return { status: 403, message: `cross-origin request refused (Origin: ${origin}); without API_KEY only this service's own pages may change state` };
  }
  return null;
}

/** Whether `origin` (`http://host:port`) names the same host and port as the `Host` header. */
function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    const url = new URL(origin);
    const defaultPort = url.protocol === 'https:' ? '443' : '80';
    const [, name = '', port = defaultPort] = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host.trim().toLowerCase()) ?? [];
    return url.hostname.toLowerCase() === name && (url.port || defaultPort) === port;
  } catch {
    return false; // `null` and anything else that is not a URL
  }
}

/**
 * Express middleware applying {@link crossSiteProblem} (installed by the
 * service starter only when API_KEY is unset). Answers with Nest's error body.
 */
export function crossSiteGuard(settings: Pick<ServiceSettings, 'CORS_ORIGINS'>) {
  const corsOrigins = (settings.CORS_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  return (req: Request, res: Response, next: NextFunction): void => {
    const problem = crossSiteProblem(req, corsOrigins);
    if (problem) return refuse(res, problem.status, problem.message);
    next();
  };
}
