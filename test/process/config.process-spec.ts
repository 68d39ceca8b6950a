import { runServiceToExit } from '../support';

/** The built service refuses invalid settings at start-up; the parsing itself is unit-tested in src/config/settings.spec.ts. */
describe('settings', () => {
  it.each([
    [{ WORKER_CONCURRENCY: 'abc' }, 'Invalid setting WORKER_CONCURRENCY="abc": WORKER_CONCURRENCY must be an integer from 1 to 1000'],
    [{ LEASE_MS: '-1' }, 'Invalid setting LEASE_MS=-1: LEASE_MS must be an integer from 100 to 86400000'],
    [{ DATABASE_URL: 'mysql://x' }, 'Invalid setting DATABASE_URL: DATABASE_URL must start with postgres:// or postgresql://'],
    [{ LOG_LEVEL: 'loud' }, 'Invalid setting LOG_LEVEL="loud": LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent'],
  ])('stops start-up on %j with one line naming the setting and its allowed values', async (env, line) => {
    const { code, output } = await runServiceToExit({ DATABASE_URL: 'postgres://127.0.0.1:1/none', ...env });
    expect(code).not.toBe(0);
    expect(output.trim()).toBe(line);
  });
});

/** A connection error no retry cures stops start-up at once (a server that does not answer: unreachable-database.process-spec.ts). */
describe('database at start-up', () => {
  it('stops at once, naming the cause, when the database does not exist', async () => {
    const server = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
    server.pathname = '/aq_no_such_database';
    const started = Date.now();
    const { code, output } = await runServiceToExit({ DATABASE_URL: server.toString(), LOG_LEVEL: 'error' });
    expect(code).not.toBe(0);
    // One JSON log line (start-up logs are JSON from the first one), its message naming the cause.
    const messages = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toContainEqual(expect.stringContaining('database "aq_no_such_database" does not exist'));
    expect(output).not.toContain('Retrying');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
