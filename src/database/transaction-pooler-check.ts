import { Client } from 'pg';

/** Rounds of the check: a pooler that happens to hand one client the same server connection twice is caught by the next. */
const ROUNDS = 3;
/** Bound of each connect and statement of the check (ms): it must never hold start-up long. */
const CHECK_TIMEOUT_MS = 5_000;

/** What {@link findTransactionPooler} saw: server process ids that prove a transaction pooler. */
export interface TransactionPoolerEvidence {
  /** What was seen, in words, e.g. `one connection's transactions ran on server processes 101 and 102`. */
  seen: string;
}

/**
 * Whether `url` goes through a pooler in transaction (or statement) mode,
 * where consecutive transactions of one client connection may run on
 * different server connections. On two client connections A and B: A asks
 * its server process id; B opens a transaction and asks its own; while B's
 * transaction holds its server connection, A asks again. On a direct
 * connection or through session pooling each client keeps one server
 * process, so B's differs from A's and A's never changes. Through a
 * transaction pooler B gets A's idle server connection (the same pid), or A's
 * second transaction gets another one (a changed pid). Up to three rounds.
 *
 * @param url the PostgreSQL URL to check (DATABASE_URL).
 * @returns the evidence when a transaction pooler is in front, else null.
 * @throws Error when a connection or statement of the check fails (each bounded by 5 s).
 */
export async function findTransactionPooler(url: string): Promise<TransactionPoolerEvidence | null> {
  const config = { connectionString: url, connectionTimeoutMillis: CHECK_TIMEOUT_MS, query_timeout: CHECK_TIMEOUT_MS };
  const a = new Client(config);
  const b = new Client(config);
  // A backend that dies between statements must not crash the process with an unhandled 'error' event.
  a.on('error', () => undefined);
  b.on('error', () => undefined);
  try {
    await Promise.all([a.connect(), b.connect()]);
    const pid = async (client: Client) => (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    for (let round = 0; round < ROUNDS; round++) {
      const first = await pid(a);
      await b.query('BEGIN');
      try {
        const other = await pid(b);
        // Two client connections on one server process: only a pooler shares them. (Checked before A asks
        // again: with a single server connection, A would wait for B's transaction.)
        if (other === first) return { seen: `two client connections ran on one server process, pid ${first}` };
        const again = await pid(a);
        if (again !== first) return { seen: `one client connection's transactions ran on server processes ${first} and ${again}` };
      } finally {
        await b.query('COMMIT');
      }
    }
    return null;
  } finally {
    await Promise.all([a.end().catch(() => undefined), b.end().catch(() => undefined)]);
  }
}
