import type { ActionContext, GroupState } from './action-context.interface';
import { ActionTransactionMisuseError } from './action-transaction-misuse.error';

/**
 * `ctx.transaction` where it cannot complete the action: a chunk handler (one
 * transaction per action is not what a chunk records) or a handler thread (the
 * queue's connections live in the main thread). Every call rejects with an
 * ActionTransactionMisuseError; nothing is written.
 * @param where what the handler is, for the message ("a chunk handler").
 */
export function refuseTransaction(where: string): ActionContext['transaction'] {
  return () => Promise.reject(new ActionTransactionMisuseError(`ctx.transaction is not supported in ${where}; nothing was written`));
}

/**
 * `ctx.groupState` where `ctx.transaction` is refused: `get` rejects and `set`
 * throws an ActionTransactionMisuseError.
 * @param where what the handler is, for the message.
 */
export function refusedGroupState(where: string): GroupState {
  const message = `ctx.groupState is not supported in ${where} (it works only inside ctx.transaction); nothing was written`;
  return {
    get: () => Promise.reject(new ActionTransactionMisuseError(message)),
    set: () => {
      throw new ActionTransactionMisuseError(message);
    },
  };
}
