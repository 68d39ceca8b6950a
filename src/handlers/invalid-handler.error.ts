/** Start-up error: a class marked with @ActionHandler does not extend ActionHandlerHost, or has a bad type. */
export class InvalidActionHandlerError extends Error {
  constructor(className: string, reason: string) {
    super(`Invalid action handler ${className}: ${reason}`);
    this.name = 'InvalidActionHandlerError';
  }
}

/** Start-up error: two handlers claim one action type. */
export class DuplicateActionHandlerError extends Error {
  constructor(type: string, first: string, second: string) {
    super(`Two handlers for action type "${type}": ${first} and ${second}. Register exactly one.`);
    this.name = 'DuplicateActionHandlerError';
  }
}
