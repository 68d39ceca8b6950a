import { Client } from 'pg';
import { QUEUE_APPLICATION_NAME } from '../release/release-version';

/**
 * What a dedicated connection is for. It names the connection in
 * `pg_stat_activity` (`application_name` `ordered-action-queue/<version>:<role>`),
 * which is how an operator, and the upgrade's check for other releases, tells
 * them apart.
 */
export type DedicatedConnectionRole = 'heartbeat' | 'listen' | 'watchdog';

/**
 * A connection of its own, outside the pool: the heartbeat (a busy pool must
 * never delay it), LISTEN (session state), the event-loop watchdog (its own
 * thread). Not connected yet; call `connect()`.
 *
 * @param url the PostgreSQL URL.
 * @param role what it is for (names it).
 * @param connectTimeoutMs how long `connect()` may take (ms) before it rejects.
 */
export function dedicatedClient(url: string, role: DedicatedConnectionRole, connectTimeoutMs: number): Client {
  return new Client({ connectionString: url, application_name: `${QUEUE_APPLICATION_NAME}:${role}`, connectionTimeoutMillis: connectTimeoutMs });
}

/**
 * Destroys the socket of `client` at once. `client.end()` waits for the
 * socket to close, which never happens on a connection to a host that stopped
 * answering (a partition, a hung server), and pg has no public method that
 * does not wait; so this reaches the client's socket (`connection.stream`,
 * pg 8), in this one place. Harmless on a client already closed.
 */
export function destroySocket(client: Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/** Forgets `client` without waiting for it (it may hang): its socket is destroyed and `end()` runs in the background. */
export function abandonClient(client: Client): void {
  destroySocket(client);
  client.end().catch(() => undefined);
}
