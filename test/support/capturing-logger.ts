import type { LoggerService } from '@nestjs/common';

/** A Nest logger that collects what it receives (log, warn, error) as strings, for specs that read start-up's messages. */
export class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  log = (message: unknown) => void this.lines.push(String(message));
  error = (message: unknown) => void this.lines.push(String(message));
  warn = (message: unknown) => void this.lines.push(String(message));
  debug = () => undefined;
  verbose = () => undefined;
}
