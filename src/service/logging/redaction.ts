/** What replaces a credential in the log. */
export const REDACTED = '[redacted]';

/**
 * Request header names that carry credentials: `authorization` and its
 * proxied forms (`proxy-authorization`, `x-forwarded-authorization`, ...), the
 * API key, cookies, and any header named like a token, key, secret or password.
 */
export const CREDENTIAL_HEADER = /authorization|cookie|api[-_]?key|token|secret|passw(or)?d|credential|session|signature/i;

/** Query parameter names whose values are credentials (`?api_key=…`, `?access_token=…`, `?password=…`). */
export const CREDENTIAL_PARAM = /key|token|secret|passw(or)?d|auth|credential|session|signature|sig$|code/i;

/**
 * A copy of `headers` with every credential header's value replaced by
 * {@link REDACTED} (see {@link CREDENTIAL_HEADER}).
 */
export function redactHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = CREDENTIAL_HEADER.test(name) ? REDACTED : value;
  return out;
}

/**
 * `url` (a request target, `/path?query`, or an absolute URL) with the user
 * and password of an absolute URL and the value of every credential-named
 * query parameter replaced by {@link REDACTED}. Anything it cannot parse is
 * returned without its query string.
 */
export function redactUrl(url: string): string {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(url);
  let parsed: URL;
  try {
    parsed = new URL(url, 'http://x');
  } catch {
    return url.replace(/[?#].*$/, '');
  }
  let changed = false;
  if (absolute && (parsed.username || parsed.password)) {
    parsed.username = REDACTED;
    parsed.password = '';
    changed = true;
  }
  for (const name of [...new Set(parsed.searchParams.keys())]) {
    if (CREDENTIAL_PARAM.test(name)) {
      parsed.searchParams.set(name, REDACTED);
      changed = true;
    }
  }
  if (!changed) return url;
  return absolute ? parsed.toString() : `${parsed.pathname}${parsed.search}${parsed.hash}`;
}
