import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { waitFor, withTestDatabase } from '../support';

const DRIVER = join(__dirname, '..', '..', 'dist', 'test', 'fixtures', 'listen-session-driver.js');

/**
 * Under MVCC pressure node-postgres warned "client.query()
 * while already executing": the LISTEN connection, which holds the wake-up
 * leadership's session lock, got a probe that outlived its 2 s client-side
 * wait, the next poll's probe and a leader's relays, all at once. The next
 * major version of `pg` makes that an error. Here a process drives the real
 * NotificationListener and WakeLeadership (test/fixtures/listen-session-driver.ts)
 * while the test holds an XID open (the pressure) and blocks the probe with a
 * lock on `actions` (a slow statement, deterministically): probes and relays
 * keep coming while it waits, as polls and notifications send them. The
 * driver's stderr must hold no such warning, every statement must end once
 * the lock goes, and the session must still answer.
 *
 * Seen to fail without the fix (the warning on stderr: the relays were sent
 * on the client beside the blocked probe, and a probe again after its
 * timeout, stacking statements in node-postgres's queue).
 */
describe('the LISTEN connection under a slow statement', () => {
  const db = withTestDatabase('listen_session');

  it('never has two statements in flight on it, and still answers afterwards', async () => {
    const pressure = await db.connect();
    await pressure.query('BEGIN');
    await pressure.query('SELECT txid_current()'); // a held XID, as an analytics session leaves one
    const locker = await db.connect();

    const child = spawn(process.execPath, ['--trace-deprecation', DRIVER], { env: { ...process.env, DATABASE_URL: db.url }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor(async () => out.includes('ready') || child.exitCode !== null, 20_000);
      expect(out).toContain('ready leading');

      await locker.query('BEGIN');
      await locker.query('LOCK TABLE actions IN ACCESS EXCLUSIVE MODE');
      child.stdin.write('go\n');
      // The probe waits on the lock: the slow statement.
      await waitFor(
        async () =>
          (
            await locker.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE '%:listen' AND wait_event_type = 'Lock'`,
            )
          ).rows[0].n === 1,
        10_000,
      );
      await waitFor(async () => out.includes('sent') || child.exitCode !== null, 10_000);
      await locker.query('COMMIT');
      child.stdin.write('released\n');
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([exited, new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still running'), 15_000)))]);
      clearTimeout(timer);

      expect(err).not.toContain('already executing');
      expect({ code, err: err.slice(0, 2_000) }).toEqual({ code: 0, err: '' });
      expect(out).toMatch(/done \[/);
      // The first callers stopped waiting after 2 s; those after the lock went got the answer.
      console.log(`listen session under a slow statement: ${out.trim().split('\n').pop()}`);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await pressure.query('ROLLBACK').catch(() => undefined);
      await locker.query('ROLLBACK').catch(() => undefined);
    }
  }, 60_000);
});
