// @run-alone (test/support/run-alone.ts): bounds when each head restarts after a kill, to 2 s of slack.
import { Client } from 'pg';
import { newExecutionLogPath, readExecutions, ServiceProcess, startFixtureService, waitFor, withTestDatabase } from '../support';

const LEASE_MS = 3_000;
const REAPER_INTERVAL_MS = 1_000;
const HEADS = 4;
/** Each head sleeps this long (ms): it outlives both crashes. */
const HEAD_MS = 15_000;
/** After the lease has expired: two reaper rounds and 2 s for the claim and the start. */
const RESTART_BOUND_MS = 2 * REAPER_INTERVAL_MS + 2_000;

/**
 * Two crashes in a row must not make every action in flight a suspect
 * (src/database/sql/047-singled-losses.up.sql). Instance A runs the heads of
 * 4 groups and is killed (SIGKILL); B runs them again and is killed too; C
 * (a process manager's restart of A) then runs them. Each head was lost
 * twice in a row, each time with the 3 others: weak evidence, so C runs all
 * four at once, each restarting within the lease's expiry + 2 reaper
 * intervals + 2 s. Under 011's rule each was a suspect after the second
 * loss and C, which runs one suspect at a time, ran them one after another:
 * the last restarted about 45 s after its lease expired (seen failing so,
 * against 042's aq_end_lost_attempts).
 *
 * B and C are started with A and kept stopped (SIGSTOP) until their turn, so
 * that each round's heads all go to one instance, with no process start in
 * the bound.
 */
describe('two crashes in a row', () => {
  const db = withTestDatabase('double_crash');
  let c: Client;
  const procs: ServiceProcess[] = [];
  const execLog = newExecutionLogPath('double-crash');

  beforeAll(async () => {
    c = await db.connect();
  });
  afterEach(async () => {
    for (const p of procs.splice(0)) {
      p.child.kill('SIGCONT');
      await p.kill();
    }
  });

  /** Waits until every head runs on `proc` (its worker id holds its pid), then for a heartbeat: one lease expiry for all. */
  async function allRunningOn(proc: ServiceProcess, ids: string[]): Promise<void> {
    await waitFor(
      async () =>
        (
          await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM actions WHERE id = ANY($1::bigint[]) AND status = 'running' AND lease_owner LIKE $2`, [
            ids,
            `%-${proc.child.pid}-%`,
          ])
        ).rows[0].n === ids.length,
      20_000,
      50,
    );
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 3 + 500));
  }

  it(`re-runs ${HEADS} heads lost together twice in parallel, each within lease expiry + ${RESTART_BOUND_MS} ms of the second kill`, async () => {
    const env = {
      LOG_LEVEL: 'warn',
      WORKER_CONCURRENCY: '16',
      LEASE_MS: String(LEASE_MS),
      REAPER_INTERVAL_MS: String(REAPER_INTERVAL_MS),
      WORKER_POLL_INTERVAL_MS: '200',
      EXEC_LOG: execLog,
    };
    const [a, b, restarted] = await Promise.all([0, 1, 2].map(() => startFixtureService(db.url, env)));
    procs.push(a, b, restarted);
    b.child.kill('SIGSTOP');
    restarted.child.kill('SIGSTOP');

    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload)
       SELECT g, 'test.sleep', jsonb_build_object('ms', $2::int) FROM generate_series(1, $1::int) g RETURNING id::text`,
      [HEADS, HEAD_MS],
    );
    const ids = rows.map((r) => r.id);
    await allRunningOn(a, ids);
    b.child.kill('SIGCONT');
    await a.kill();
    await allRunningOn(b, ids);
    restarted.child.kill('SIGCONT');
    const {
      rows: [{ expires }],
    } = await c.query<{ expires: number }>(
      `SELECT (extract(epoch FROM max(lease_expires_at)) * 1000)::float8 AS expires FROM actions WHERE id = ANY($1::bigint[])`,
      [ids],
    );
    await b.kill();
    const killedAt = Date.now();

    const thirdStarts = () => readExecutions(execLog).filter((e) => ids.includes(e.id) && e.attempt === 3 && e.pid === restarted.child.pid);
    await waitFor(async () => thirdStarts().length === HEADS, expires - Date.now() + RESTART_BOUND_MS + 20_000, 100).catch(() => undefined);
    const starts = thirdStarts();
    const { rows: state } = await c.query(
      `SELECT id::text, status, quarantined, uncharged_losses, charged_attempts,
              (SELECT error FROM action_attempts t WHERE t.action_id = a.id ORDER BY t.attempt DESC LIMIT 1) AS trace
       FROM actions a WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [ids],
    );
    const lateness = starts.map((e) => e.start - expires);
    console.log(
      `double crash: second kill ${expires - killedAt} ms before its leases expired; third attempts started ${JSON.stringify(lateness)} ms after it; ${JSON.stringify(state)}`,
    );
    expect(starts).toHaveLength(HEADS);
    for (const ms of lateness) expect(ms).toBeLessThanOrEqual(RESTART_BOUND_MS);
    for (const s of state) {
      expect(s).toMatchObject({
        quarantined: false,
        uncharged_losses: 2,
        charged_attempts: 0,
        trace: 'lease expired (not charged; lost with 3 others; run again at once)',
      });
    }
  }, 90_000);
});
