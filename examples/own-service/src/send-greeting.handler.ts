import { ActionContext, ActionHandler, ActionHandlerHost, PermanentFailureError, QueuedAction } from 'ordered-action-queue';

/** Runs `greeting.send`: greetings to one person (the lock id) are sent one at a time, in order. */
@ActionHandler({ type: 'greeting.send', timeoutMs: 5_000, maxAttempts: 3 })
export class SendGreetingHandler extends ActionHandlerHost {
  async handle(action: QueuedAction, ctx: ActionContext) {
    const name = action.payload.name;
    if (typeof name !== 'string') throw new PermanentFailureError('payload.name must be a string');
    ctx.logger.log(`greeting ${name} (attempt ${ctx.attempt})`);
    return { greeting: `Hello, ${name}!` };
  }
}
