import { isIP } from 'node:net';
import type { ServiceSettings } from '../../config/settings';

/** Host names every service answers without API_KEY: the loopback names. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/**
 * The host name of a `Host` header, lower case, without its port or the
 * brackets of an IPv6 literal: `[::1]:3000` → `::1`, `Example.com:80` → `example.com`.
 */
export function hostNameOf(header: string): string {
  const host = header.trim().toLowerCase();
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']') > 0 ? host.indexOf(']') : undefined);
  // An IPv6 literal without brackets has several colons: no port to strip.
  if (host.split(':').length > 2) return host;
  return host.replace(/:\d*$/, '');
}

/** An IPv4 address as Node reports it on a dual-stack socket (`::ffff:127.0.0.1`), without the prefix. */
function plainAddress(address: string): string {
  return address.toLowerCase().replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
}

/** Whether `address` (an IP address or `localhost`) can only be reached from this machine. */
export function isLoopbackAddress(address: string): boolean {
  const a = plainAddress(address);
  if (a === 'localhost' || a === '::1') return true;
  return isIP(a) === 4 && a.startsWith('127.');
}

/**
 * Which `Host` names a request may carry (DNS rebinding: a page whose own
 * name resolves to this machine gets nothing but 403).
 *
 * - ALLOWED_HOSTS set: those names (`*`: any);
 * - else with API_KEY: any (a browser page cannot know the key);
 * - else: the loopback names (`localhost`, `*.localhost`, `127.0.0.1`, `::1`),
 *   the configured HOST, and the local address the request arrived on (so a
 *   service listening on every interface answers by each of its addresses).
 *
 * @returns a predicate of (host name from {@link hostNameOf}, local address of the socket).
 */
export function allowedHostPredicate(settings: Pick<ServiceSettings, 'ALLOWED_HOSTS' | 'API_KEY' | 'HOST'>): (host: string, localAddress?: string) => boolean {
  if (settings.ALLOWED_HOSTS !== undefined) {
    const names = settings.ALLOWED_HOSTS.split(',').map((n) => hostNameOf(n));
    if (names.includes('*')) return () => true;
    const set = new Set(names);
    return (host) => set.has(host) || set.has(plainAddress(host));
  }
  if (settings.API_KEY) return () => true;
  const fixed = new Set([...LOOPBACK_NAMES, settings.HOST.toLowerCase()]);
  return (host, localAddress) =>
    fixed.has(host) || host.endsWith('.localhost') || (localAddress !== undefined && plainAddress(localAddress) === plainAddress(host));
}
