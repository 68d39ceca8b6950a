import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** A worker id unique per process start: `<host>-<pid>-<random>`, as written to leases and the trace. */
export function defaultWorkerId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
