/**
 * Lets the database and process specs share two jest workers while a few run
 * alone. A spec file whose header comment says `@run-alone` (its assertions
 * time the machine, or it rebuilds dist/ under the other specs) takes a
 * PostgreSQL advisory lock in exclusive mode before its first hook; every other
 * spec file takes the same lock in shared mode. Each file holds it on a
 * connection of its own until its last hook, so a run-alone file starts once
 * the files running now have ended and runs with no other spec beside it.
 * PostgreSQL queues a new shared request behind a waiting exclusive one, so a
 * run-alone file is never starved (the lock manager's wait queue, see
 * https://www.postgresql.org/docs/current/explicit-locking.html#ADVISORY-LOCKS).
 */

import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { TEST_SERVER_URL } from './test-database';

/** The advisory lock's key (any bigint no other code of ours takes on the test server's `postgres` database). */
const RUN_ALONE_LOCK = 7_426_110_001;

/** Longest a file waits for its turn (ms): the longest spec, twice, with margin. */
const WAIT_FOR_TURN_MS = 15 * 60_000;

/** Whether the spec at `path` asks to run alone: `@run-alone` in its first 4 000 characters (its header comment). */
export function runsAlone(path: string): boolean {
  return /@run-alone\b/.test(readFileSync(path, 'utf8').slice(0, 4_000));
}

/**
 * Registers the root-level hooks that take the run-alone lock before the
 * file's own hooks and give it back after them (setup-after-env.ts calls it
 * first). Throws from the hook, failing the file, when the lock cannot be taken.
 */
export function installRunAloneLock(): void {
  let holder: Client | undefined;
  beforeAll(async () => {
    const path = expect.getState().testPath;
    const exclusive = path !== undefined && runsAlone(path);
    holder = new Client({ connectionString: TEST_SERVER_URL, application_name: 'aq-test-run-alone' });
    // A lost connection gives the lock back; the file's tests go on (no crash from an unhandled 'error').
    holder.on('error', () => undefined);
    await holder.connect();
    await holder.query(exclusive ? 'SELECT pg_advisory_lock($1)' : 'SELECT pg_advisory_lock_shared($1)', [RUN_ALONE_LOCK]);
  }, WAIT_FOR_TURN_MS);
  afterAll(async () => {
    await holder?.end().catch(() => undefined);
    holder = undefined;
  });
}
