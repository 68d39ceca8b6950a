import { MisbehavingHandlersModule } from '../fixtures/misbehaving-handlers';
import { newExecutionLogPath, readExecutions, waitFor, withTestApp } from '../support';

const execLog = newExecutionLogPath('unstorable');
process.env.EXEC_LOG = execLog;

/** A result the queue cannot store fails its attempt once, with a readable reason. */
describe('unstorable handler results', () => {
  const t = withTestApp('unstorable', { env: { DEMO_HANDLERS: 'false' }, imports: [MisbehavingHandlersModule] });

  it('a result whose toJSON throws null fails at once (1 execution, no retry) naming the problem, not a TypeError of the queue', async () => {
    const { rows } = await t.pg.query<{ id: string }>(
      `INSERT INTO actions (lock_id, type, payload) VALUES (701, 'test.bad-result', '{"kind": "toJSON-null"}') RETURNING id::text`,
    );
    const id = rows[0].id;
    const action = await waitFor(async () => {
      const { rows: r } = await t.pg.query<{ status: string; attempts: number; max_attempts: number; last_error: string }>(
        `SELECT status, attempts, max_attempts, last_error FROM actions WHERE id = $1`,
        [id],
      );
      return r[0].status === 'failed' ? r[0] : null;
    }, 10_000);
    expect(action.max_attempts).toBeGreaterThan(1);
    expect(action.attempts).toBe(1);
    expect(action.last_error).toMatch(/handler result is not JSON-serialisable: null/);
    expect(action.last_error).not.toMatch(/TypeError|Cannot read properties/);
    const trace = (await t.pg.query(`SELECT attempt, outcome FROM action_attempts WHERE action_id = $1`, [id])).rows;
    expect(trace).toEqual([{ attempt: 1, outcome: 'error' }]);
    expect(readExecutions(execLog).filter((e) => e.id === id)).toHaveLength(1);
  });
});
