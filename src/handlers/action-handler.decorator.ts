import { applyDecorators, Injectable, SetMetadata } from '@nestjs/common';
import { ACTION_HANDLER_FILE_METADATA, ACTION_HANDLER_METADATA } from './action-handler.constants';
import { ActionHandlerOptions } from './action-handler-options.interface';

/**
 * Marks a provider as the handler of one action type. The class must extend
 * {@link ActionHandlerHost} and be listed as a provider in any module; the
 * service finds it at start-up.
 *
 * @param typeOrOptions the action type, or the full {@link ActionHandlerOptions}.
 * @example
 * ```ts
 * @ActionHandler({ type: 'instance.create', timeoutMs: 120_000 })
 * export class CreateInstanceHandler extends ActionHandlerHost {
 *   async handle(action: QueuedAction, ctx: ActionContext) { ... }
 * }
 * ```
 * @publicApi
 */
export function ActionHandler(typeOrOptions: string | ActionHandlerOptions): ClassDecorator {
  const options = typeof typeOrOptions === 'string' ? { type: typeOrOptions } : typeOrOptions;
  // A thread loads the handler from its file: the file that applies this decorator.
  const file = options.isolation === 'thread' ? callerFile() : undefined;
  return applyDecorators(Injectable(), SetMetadata(ACTION_HANDLER_METADATA, options), SetMetadata(ACTION_HANDLER_FILE_METADATA, file));
}

/** The file of the code that called ActionHandler (from V8's structured stack trace). */
function callerFile(): string | undefined {
  const original = Error.prepareStackTrace;
  try {
    Error.prepareStackTrace = (_error, frames) => frames;
    const frames = new Error().stack as unknown as NodeJS.CallSite[];
    return frames.map((frame) => frame.getFileName()).find((name): name is string => !!name && name !== __filename && !name.startsWith('node:'));
  } finally {
    Error.prepareStackTrace = original;
  }
}
