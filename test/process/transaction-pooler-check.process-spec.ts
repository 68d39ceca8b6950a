import { runServiceToExit, startPgBouncer, withTestDatabase } from '../support';

/**
 * A transaction pooler the settings do not declare is found at start-up, and
 * the service refuses to start naming DATABASE_POOLER, instead of running
 * with "prepared statement … already exists" errors and workers LISTEN never
 * wakes. Through session pooling, and with DATABASE_POOLER=transaction, it
 * starts as before: pgbouncer.process-spec.ts runs both.
 */
describe('a transaction pooler without DATABASE_POOLER', () => {
  const db = withTestDatabase('pooler-check');

  it.each([20, 1])('stops start-up with a line naming DATABASE_POOLER (pool of %i server connections)', async (poolSize) => {
    const bouncer = await startPgBouncer('transaction', poolSize);
    try {
      const { code, output } = await runServiceToExit({ DATABASE_URL: bouncer.urlFor(db.name), LOG_LEVEL: 'warn' }, 30_000);
      expect(code).not.toBe(0);
      const messages = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages).toContainEqual(expect.stringMatching(/goes through a pooler in transaction mode .* set DATABASE_POOLER=transaction/));
      // Refused before any worker statement: no error of a named statement of the queue's own.
      expect(output).not.toMatch(/prepared statement \\?"aq_/);
    } finally {
      await bouncer.stop();
    }
  });
});
