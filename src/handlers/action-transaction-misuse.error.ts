/**
 * `ctx.transaction` was used where it cannot work: nested inside itself,
 * called again after it committed, called after the handler returned, from a
 * handler thread (`isolation: 'thread'`), or from a chunk handler. Nothing was
 * written; thrown into the handler, it fails the attempt like any handler
 * error (charged, retried while the budget lasts).
 * @publicApi
 */
export class ActionTransactionMisuseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ActionTransactionMisuseError';
  }
}
