import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from './database-unavailable.filter';

/** A pg error as the driver raises it, with its SQLSTATE. */
function pgError(code: string, message = `error ${code}`): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

describe('isDatabaseUnavailable', () => {
  it.each([
    ['25006', 'read-only transaction (failover, default_transaction_read_only)'],
    ['53100', 'disk full'],
    ['53200', 'out of memory'],
    ['53300', 'too many connections'],
    ['57000', 'operator intervention'],
    ['57P01', 'admin shutdown'],
    ['57P03', 'cannot connect now'],
    ['57P05', 'idle session timeout'],
    ['58030', 'I/O error'],
    ['08006', 'connection failure'],
    ['40001', 'serialization failure after the route retried'],
    ['40P01', 'deadlock after the route retried'],
  ])('treats SQLSTATE %s (%s) as the database refusing, not the client', (code) => {
    expect(isDatabaseUnavailable(pgError(code))).toBe(true);
    const wrapped = new QueryFailedError('INSERT ...', [], pgError(code));
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
  });

  it.each([
    ['23505', 'unique violation'],
    ['22P02', 'invalid text representation'],
    ['42P01', 'undefined table: a bug, not an outage'],
    ['P0001', 'raised by a trigger'],
  ])('leaves SQLSTATE %s (%s) to the default handling', (code) => {
    expect(isDatabaseUnavailable(pgError(code))).toBe(false);
  });
});
