import type { LoggerService } from '@nestjs/common';
import pino from 'pino';
import { ServiceSettings } from '../../config/settings';
import { buildPinoHttpOptions } from './logging.module';

/**
 * Nest's logger until the app's own (nestjs-pino) takes over: the same pino
 * line shape (`level`, `time`, `pid`, `hostname`, `context`, `msg`), level
 * (`LOG_LEVEL`) and output, so the lines a service writes before its app
 * exists (the embedded PostgreSQL starting, a start-up failure) are JSON like
 * every later one instead of Nest's coloured text. Installed by the service
 * starter with `Logger.overrideLogger`; `app.useLogger` replaces it.
 */
export class StartupLogger implements LoggerService {
  private readonly pino: pino.Logger;

  /** @param settings the validated settings (LOG_LEVEL; a terminal gets pino-pretty as the app does). */
  constructor(settings: ServiceSettings) {
    const { level, transport } = buildPinoHttpOptions(settings);
    this.pino = pino({ level, transport });
  }

  log(message: unknown, context?: string): void {
    this.pino.info({ context }, String(message));
  }

  error(message: unknown, stackOrContext?: string, context?: string): void {
    // Nest passes (message, stack, context), or (message, context) without a stack.
    const [stack, ctx] = context === undefined ? [undefined, stackOrContext] : [stackOrContext, context];
    this.pino.error({ context: ctx, ...(stack ? { stack } : {}) }, String(message));
  }

  warn(message: unknown, context?: string): void {
    this.pino.warn({ context }, String(message));
  }

  debug(message: unknown, context?: string): void {
    this.pino.debug({ context }, String(message));
  }

  verbose(message: unknown, context?: string): void {
    this.pino.trace({ context }, String(message));
  }

  fatal(message: unknown, context?: string): void {
    this.pino.fatal({ context }, String(message));
  }
}
