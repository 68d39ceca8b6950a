import { isDatabaseRefusal } from './database-refusal';

describe('isDatabaseRefusal', () => {
  it.each([
    ['read-only transaction', { code: '25006' }, true],
    ['terminated session', { code: '57P01' }, true],
    ['connection failure', { code: '08006' }, true],
    ['connection refused', { code: 'ECONNREFUSED' }, true],
    ['unique violation (the statement)', { code: '23505' }, false],
    ['client-side timeout (no code)', new Error('Query read timeout'), false],
    ['not an error', null, false],
  ])('%s', (_name, error, expected) => {
    expect(isDatabaseRefusal(error)).toBe(expected);
  });
});
