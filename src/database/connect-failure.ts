/**
 * Words for a start-up that cannot reach PostgreSQL: where it connects (host
 * and port, never the password) and why an attempt failed, with what to
 * check. Used by the start-up's connection loop (queue-database.ts).
 */

import { parse } from 'pg-connection-string';

/** Where a PostgreSQL URL points. */
export interface ConnectTarget {
  /** Host name, address or socket folder as the URL gives it (default `localhost`). */
  host: string;
  /** TCP port (default 5432). */
  port: number;
  /** Database name (default: the user's name, as libpq). */
  database: string;
  /** User name (default `postgres` when the URL names none). */
  user: string;
}

/**
 * The host, port, database and user of a `postgres://` URL as node-postgres
 * reads it (its own parser, pg-connection-string: a `?host=` socket folder
 * wins over the URL's host), with libpq's defaults where it names none.
 *
 * @param url a postgres:// or postgresql:// URL.
 */
export function connectTarget(url: string): ConnectTarget {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(url);
  } catch {
    return { host: '(unparsable DATABASE_URL)', port: 5432, database: '', user: '' };
  }
  const user = parsed.user || 'postgres';
  return { host: parsed.host || 'localhost', port: Number(parsed.port || 5432), database: parsed.database || user, user };
}

/** `host:port` (`[::1]:5432` for an IPv6 address). */
export function hostPort(target: ConnectTarget): string {
  return `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
}

/**
 * Why one connection attempt failed, in one line: the error's message, or,
 * when it has none (Node's AggregateError when `localhost` resolves to both
 * ::1 and 127.0.0.1 and both refuse), the messages of its parts or its code.
 *
 * @param error what the attempt threw.
 */
export function connectCause(error: unknown): string {
  const e = error as { message?: unknown; code?: unknown; errors?: unknown };
  if (typeof e?.message === 'string' && e.message.trim() !== '') return e.message.trim();
  if (Array.isArray(e?.errors) && e.errors.length > 0) return [...new Set(e.errors.map((part) => connectCause(part)))].join('; ');
  if (typeof e?.code === 'string') return e.code;
  return String(error);
}

/**
 * What to check for a failed connection, by its error code or message:
 * nothing listening, a name that does not resolve, no answer (a firewall, a
 * wrong address), a server still starting, or a refused login or database.
 *
 * @param error what the attempt threw.
 * @param target where it connected.
 */
export function connectHint(error: unknown, target: ConnectTarget): string {
  const codes = errorCodes(error);
  const text = connectCause(error);
  const where = hostPort(target);
  if (codes.has('ECONNREFUSED')) {
    return `nothing accepts connections on ${where}: check that PostgreSQL runs there and listens on that address and port (listen_addresses, port), and the host and port of DATABASE_URL`;
  }
  if (codes.has('ENOTFOUND') || codes.has('EAI_AGAIN')) return `the host name ${target.host} does not resolve: check the host of DATABASE_URL and the DNS`;
  if (codes.has('ETIMEDOUT') || codes.has('EHOSTUNREACH') || codes.has('ENETUNREACH') || /timeout/i.test(text)) {
    return `no answer from ${where}: check the host and port of DATABASE_URL and any firewall or security group between this host and the server`;
  }
  if (codes.has('57P03')) return `the server at ${where} is starting up or shutting down`;
  if ([...codes].some((code) => code.startsWith('28')))
    return `the server refused user "${target.user}": check the user and password of DATABASE_URL and pg_hba.conf`;
  if ([...codes].some((code) => code.startsWith('3D'))) return `the server has no database "${target.database}": create it or fix the database of DATABASE_URL`;
  return `check that PostgreSQL runs at ${where} and DATABASE_URL`;
}

/** The `code` of an error and of the parts of an AggregateError. */
function errorCodes(error: unknown): Set<string> {
  const out = new Set<string>();
  const e = error as { code?: unknown; errors?: unknown };
  if (typeof e?.code === 'string') out.add(e.code);
  if (Array.isArray(e?.errors)) for (const part of e.errors) for (const code of errorCodes(part)) out.add(code);
  return out;
}
