import type { Client, QueryConfig, QueryResult, QueryResultRow } from 'pg';

/**
 * The statements of one dedicated connection whose session matters (the
 * LISTEN connection: its session holds the wake-up leadership's advisory
 * lock), run strictly one after another: each is sent only once the one
 * before has ended on the connection, not merely once its caller stopped
 * waiting. node-postgres queues a statement sent while another runs, and
 * warns ("client.query() while already executing", an error from pg 9): a
 * probe that outlived its client-side timeout under MVCC pressure, then the
 * next probe and a leader's relay, were three statements on one connection.
 * Owners hand out this object, never the Client, so no other path can send.
 */
export class SerialSession {
  /** Settles when the last statement sent has ended on the connection. */
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  /** @param client a connected client this session now owns the statements of. */
  constructor(private readonly client: Client) {}

  /** Statements queued or running now. */
  get pending(): number {
    return this.waiting;
  }

  /**
   * Runs `config` after every statement sent before it has ended on the
   * connection. A caller that stops waiting (its own timeout) does not end
   * the statement: it still holds back the next one.
   * @param config the statement (no `query_timeout`: a timed-out statement would still run while the next is sent).
   * @returns its result.
   * @throws the driver's error.
   */
  query<R extends QueryResultRow = QueryResultRow>(config: QueryConfig): Promise<QueryResult<R>> {
    this.waiting++;
    const run = this.tail.then(() => this.client.query<R>(config));
    this.tail = run.then(
      () => this.waiting--,
      () => this.waiting--,
    );
    return run;
  }
}
