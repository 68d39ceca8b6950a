import { LoggerService } from '@nestjs/common';

/**
 * The Nest logger of the command line: the services it calls (MigrationsService,
 * BulkOperationsService) log warnings and errors to stderr as plain lines; their
 * progress lines are dropped, because each command prints its own result, and
 * stdout carries only that result (one JSON document with `--json`).
 */
export class CliLogger implements LoggerService {
  log(): void {}

  warn(message: unknown, context?: unknown): void {
    this.write('warning', message, context);
  }

  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest[rest.length - 1]);
  }

  private write(level: string, message: unknown, context: unknown): void {
    const from = typeof context === 'string' ? ` (${context})` : '';
    process.stderr.write(`${level}${from}: ${String(message)}\n`);
  }
}
