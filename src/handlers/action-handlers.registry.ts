import { Injectable } from '@nestjs/common';
import { ActionHandlerHost } from './action-handler.host';
import { ActionHandlerOptions } from './action-handler-options.interface';
import { DuplicateActionHandlerError } from './invalid-handler.error';

/** A discovered handler: the instance, its options and its class name. */
export interface RegisteredHandler {
  instance: ActionHandlerHost;
  options: ActionHandlerOptions;
  className: string;
  /** The file that declares it (thread-isolated handlers only: threads load it). */
  file?: string;
}

/**
 * Action type → handler. Filled by {@link ActionHandlersExplorer} at start-up;
 * read by the worker (dispatch, which types to claim) and the API (reject
 * types nobody handles).
 */
@Injectable()
export class ActionHandlersRegistry {
  private readonly handlers = new Map<string, RegisteredHandler>();

  /**
   * Adds a handler.
   * @throws DuplicateActionHandlerError when the type already has one.
   */
  register(handler: RegisteredHandler): void {
    const existing = this.handlers.get(handler.options.type);
    if (existing) throw new DuplicateActionHandlerError(handler.options.type, existing.className, handler.className);
    this.handlers.set(handler.options.type, handler);
  }

  /** The handler of `type`, or undefined. */
  get(type: string): RegisteredHandler | undefined {
    return this.handlers.get(type);
  }

  /** Whether `type` has a handler. */
  has(type: string): boolean {
    return this.handlers.has(type);
  }

  /** Every handled type, sorted. */
  types(): string[] {
    return [...this.handlers.keys()].sort();
  }

  /** Whether `type` runs in ordered chunks (its handler has the `chunk` option). */
  isChunked(type: string): boolean {
    return this.handlers.get(type)?.options.chunk !== undefined;
  }

  /** The types that run in chunks, sorted, and each one's `chunk.max`: parameters of the claim and the finishing statement. */
  chunking(): { types: string[]; max: number[] } {
    const types = this.types().filter((type) => this.isChunked(type));
    return { types, max: types.map((type) => this.handlers.get(type)!.options.chunk!.max) };
  }

  /** Each handled type's `maxAttempts` cap, in the order of {@link types} (null: no cap). */
  caps(): (number | null)[] {
    return this.types().map((type) => this.handlers.get(type)!.options.maxAttempts ?? null);
  }
}
