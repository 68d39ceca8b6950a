import type { IncomingMessage, ServerResponse } from 'node:http';
import { loadSettings } from '../../config/settings';
import { buildPinoHttpOptions } from './logging.module';

/** The level each HTTP response is logged at (pino-http's customLogLevel). */
describe('request log levels', () => {
  const options = buildPinoHttpOptions(loadSettings({}), false);
  const level = (url: string, statusCode: number, error?: Error) =>
    options.customLogLevel!({ url } as IncomingMessage, { statusCode } as ServerResponse, error);

  it('logs probes at debug, and a probe answering 503 (not ready) at warn, not error', () => {
    expect(level('/health/ready', 200)).toBe('debug');
    expect(level('/metrics', 200)).toBe('debug');
    expect(level('/health/ready', 503, new Error('failed with status code 503'))).toBe('warn');
  });

  it('logs client errors at warn and server errors at error', () => {
    expect(level('/actions', 201)).toBe('info');
    expect(level('/actions', 400)).toBe('warn');
    expect(level('/actions', 503)).toBe('error');
    expect(level('/actions/1', 500, new Error('boom'))).toBe('error');
  });
});
