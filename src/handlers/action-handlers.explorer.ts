import { rateLimitProblem } from './rate-limit';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { ACTION_HANDLER_FILE_METADATA, ACTION_HANDLER_METADATA } from './action-handler.constants';
import { ActionHandlerHost } from './action-handler.host';
import { ActionHandlerOptions, MAX_CHUNK_SIZE } from './action-handler-options.interface';
import { isChunkHandler } from './chunk-handler.host';
import { ActionHandlersRegistry } from './action-handlers.registry';
import { InvalidActionHandlerError } from './invalid-handler.error';
import { ACTION_TYPE_PATTERN } from '../vocabulary';

/**
 * Finds every provider marked with @ActionHandler (in `onModuleInit`, so
 * mistakes stop start-up, not the first claim) and fills the registry.
 *
 * @throws InvalidActionHandlerError for a class that does not extend ActionHandlerHost or has a bad type.
 * @throws DuplicateActionHandlerError for two handlers of one type.
 */
@Injectable()
export class ActionHandlersExplorer implements OnModuleInit {
  private readonly logger = new Logger(ActionHandlersExplorer.name);

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
    private readonly registry: ActionHandlersRegistry,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders()) {
      // NOTE: `metatype` is the class for class providers; factory and value
      // providers have no decorator metadata, so reading it is safe.
      const { instance, metatype } = wrapper;
      if (!instance || !metatype || typeof metatype !== 'function') continue;
      const options = this.reflector.get<ActionHandlerOptions | undefined>(ACTION_HANDLER_METADATA, metatype);
      if (!options) continue;
      const className = metatype.name;
      if (!(instance instanceof ActionHandlerHost)) {
        throw new InvalidActionHandlerError(className, 'it must extend ActionHandlerHost');
      }
      if (typeof options.type !== 'string' || !ACTION_TYPE_PATTERN.test(options.type)) {
        throw new InvalidActionHandlerError(className, `type ${JSON.stringify(options.type)} must match ${ACTION_TYPE_PATTERN}`);
      }
      const problem = optionsProblem(options) ?? chunkProblem(options, instance);
      if (problem) throw new InvalidActionHandlerError(className, problem);
      const file = this.reflector.get<string | undefined>(ACTION_HANDLER_FILE_METADATA, metatype);
      if (options.isolation === 'thread' && !file)
        throw new InvalidActionHandlerError(className, 'isolation "thread" needs the file that declares it, and none was found');
      this.registry.register({ instance, options, className, file });
    }
    this.logger.log(`Action handlers: ${this.registry.types().join(', ') || '(none)'}`);
  }
}

/** What is wrong with a chunk handler's options or class, or null. */
function chunkProblem(options: ActionHandlerOptions, instance: unknown): string | null {
  if (options.chunk === undefined) {
    return isChunkHandler(instance) ? 'it has handleChunk but no chunk option: add `chunk: { max }`' : null;
  }
  const max = (options.chunk as { max?: unknown } | null)?.max;
  if (!Number.isInteger(max) || (max as number) < 1 || (max as number) > MAX_CHUNK_SIZE) {
    return `chunk.max must be an integer from 1 to ${MAX_CHUNK_SIZE}, not ${String(max)}`;
  }
  if (!isChunkHandler(instance)) return 'a handler with the chunk option must extend ChunkHandlerHost (implement handleChunk)';
  return null;
}

/** What is wrong with a handler's options, or null. */
function optionsProblem(options: ActionHandlerOptions): string | null {
  const positiveInt = (v: unknown) => v === undefined || (Number.isInteger(v) && (v as number) > 0);
  if (!positiveInt(options.timeoutMs)) return `timeoutMs must be a positive integer (ms), not ${String(options.timeoutMs)}`;
  if (!positiveInt(options.maxAttempts) || (options.maxAttempts ?? 1) > 100)
    return `maxAttempts must be an integer from 1 to 100, not ${String(options.maxAttempts)}`;
  if (options.isolation !== undefined && options.isolation !== 'process' && options.isolation !== 'thread') {
    return `isolation must be "process" or "thread", not ${JSON.stringify(options.isolation)}`;
  }
  if (options.resourceLimits && options.isolation !== 'thread') return 'resourceLimits apply only with isolation "thread"';
  if (options.rateLimit !== undefined) return rateLimitProblem(options.rateLimit, 'rateLimit');
  return null;
}
