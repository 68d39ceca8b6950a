import { Client } from 'pg';
import { insertAction, newExecutionLogPath, ServiceProcess, sleep, startFixtureService, waitFor, withTestDatabase } from '../support';

/**
 * Errors a handler leaves behind (a forgotten
 * promise that rejects, a timer that throws) or throws in odd shapes never
 * take the instance down, and cost only the action that caused them an
 * attempt. Real service processes with the fixture handlers.
 */
describe('stray errors and odd thrown values', () => {
  const db = withTestDatabase('stray');
  let c: Client;
  let svc: ServiceProcess | null = null;
  const execLog = newExecutionLogPath('stray');

  beforeAll(async () => {
    c = await db.connect();
  });
  afterEach(async () => {
    await svc?.kill();
    svc = null;
  });

  const insert = (lockId: number | null, type: string, payload: object, maxAttempts = 5) => insertAction(c, lockId, type, payload, maxAttempts);
  const innocents = async (base: number) => Promise.all(Array.from({ length: 10 }, (_, i) => insert(base + i, 'test.sleep', { ms: 3_000 })));
  const rowsOf = async (ids: string[]) =>
    (await c.query(`SELECT id::text, status, attempts, charged_attempts, last_error FROM actions WHERE id = ANY($1::bigint[]) ORDER BY id`, [ids])).rows;

  it('keeps running beside 10 innocent actions when handlers leave a stray rejection or a late throw; only the culprit is charged', async () => {
    svc = await startFixtureService(db.url, { LOG_LEVEL: 'warn', WORKER_CONCURRENCY: '16', LEASE_MS: '3000', EXEC_LOG: execLog });
    const ten = await innocents(100);
    const strayAfter = await insert(200, 'test.stray', { ms: 200 });
    const lateThrow = await insert(201, 'test.late-throw', {});
    const strayBefore = await insert(202, 'test.stray', { ms: 200, before: true }, 2);
    await waitFor(async () => (await rowsOf([...ten, strayAfter, lateThrow, strayBefore])).every((r) => ['done', 'failed'].includes(r.status)), 20_000);
    await sleep(300);
    expect(svc.child.exitCode).toBeNull();

    // The 10 innocent actions: done at their first attempt, nothing charged.
    expect((await rowsOf(ten)).map((r) => [r.status, r.attempts, r.charged_attempts])).toEqual(ten.map(() => ['done', 1, 0]));
    // Errors after the handler returned: its result stands, the error is logged with its action.
    expect(await rowsOf([strayAfter, lateThrow])).toMatchObject([
      { status: 'done', attempts: 1 },
      { status: 'done', attempts: 1 },
    ]);
    // A stray error before it returned ends that attempt as an error, charged to it alone.
    const [before] = await rowsOf([strayBefore]);
    expect(before).toMatchObject({ status: 'failed', attempts: 2, charged_attempts: 2 });
    expect(before.last_error).toContain(`stray from action ${strayBefore}`);
    const out = svc.output();
    expect(out).toContain(`Stray unhandled rejection from the handler of action ${strayAfter} (type test.stray, attempt 1)`);
    expect(out).toContain(`Stray uncaught exception from the handler of action ${lateThrow} (type test.late-throw, attempt 1)`);
    expect(out).toContain(`Attempt 2 of action ${strayBefore} (type test.stray, lock 202) ended: failed`);
  });

  it('records a null-prototype object, an object whose toString throws, { code: 42 } and a 2 MB message readably, and keeps running', async () => {
    svc = await startFixtureService(db.url, { LOG_LEVEL: 'warn', EXEC_LOG: execLog });
    const ids = {
      nullProto: await insert(300, 'test.throw', { kind: 'null-prototype' }),
      evil: await insert(301, 'test.throw', { kind: 'evil-tostring' }),
      code: await insert(302, 'test.throw', { kind: 'code' }),
      huge: await insert(303, 'test.throw', { kind: 'huge' }),
      fn: await insert(304, 'test.bad-result', { kind: 'function' }),
      symbol: await insert(305, 'test.bad-result', { kind: 'symbol' }),
    };
    await waitFor(async () => (await rowsOf(Object.values(ids))).every((r) => r.status === 'failed'), 15_000);
    expect(svc.child.exitCode).toBeNull();
    const error = async (id: string) =>
      (await c.query<{ error: string; error_stack: string | null }>(`SELECT error, error_stack FROM action_attempts WHERE action_id = $1`, [id])).rows[0];
    expect((await error(ids.nullProto)).error).toBe('{"reason":"no prototype"}');
    expect((await error(ids.evil)).error).toContain('toString');
    expect((await error(ids.code)).error).toBe('{"code":42}');
    const huge = await error(ids.huge);
    expect(huge.error.length).toBeLessThan(4_200);
    expect(huge.error).toMatch(/^TypeError: HEAD-x+ … \[\d+ characters omitted\] … x+-TAIL$/);
    expect(huge.error_stack).toContain('misbehaving-handlers');
    expect((await error(ids.fn)).error).toContain('handler returned a function, which JSON cannot represent');
    expect((await error(ids.symbol)).error).toContain('handler returned a symbol');
    // Every failed attempt is logged at warn with id, type and attempt.
    for (const id of Object.values(ids))
      expect(svc.output()).toMatch(new RegExp(`Attempt 1 of action ${id} \\(type test\\.[a-z-]+, lock \\d+\\) ended: failed`));
  });

  it('with STRAY_ERROR_POLICY=exit releases the innocent actions uncharged, charges the culprit and exits 1', async () => {
    svc = await startFixtureService(db.url, { LOG_LEVEL: 'warn', STRAY_ERROR_POLICY: 'exit', LEASE_MS: '3000', EXEC_LOG: execLog });
    const ten = await innocents(400);
    await waitFor(async () => (await rowsOf(ten)).every((r) => r.status === 'running'), 10_000);
    const culprit = await insert(500, 'test.stray', { ms: 200, before: true });
    expect(await svc.exited).toBe(1);
    expect((await rowsOf(ten)).map((r) => [r.status, r.charged_attempts])).toEqual(ten.map(() => ['pending', 0]));
    const [culpritRow] = await rowsOf([culprit]);
    expect(culpritRow).toMatchObject({ status: 'pending', charged_attempts: 1 });
    expect(culpritRow.last_error).toContain('stray unhandled rejection');
    const outcomes = await c.query(`SELECT outcome, count(*)::int AS n FROM action_attempts WHERE action_id = ANY($1::bigint[]) GROUP BY outcome`, [ten]);
    expect(outcomes.rows).toEqual([{ outcome: 'released', n: 10 }]);
  });

  it('an error no handler can be blamed for: releases every running action at once, uncharged, and exits 1 (default policy)', async () => {
    // Last in the file: the released actions stay behind, quarantined.
    // Default lease (30 s): actions still running after the exit would show the release did not happen
    // (seen to fail with the guard exiting at once without its release, stray-error.guard.ts).
    svc = await startFixtureService(db.url, { LOG_LEVEL: 'warn', EXEC_LOG: execLog });
    const ten = await Promise.all(Array.from({ length: 10 }, (_, i) => insert(600 + i, 'test.sleep', { ms: 60_000 })));
    await waitFor(async () => (await rowsOf(ten)).every((r) => r.status === 'running'), 10_000);
    svc.child.kill('SIGUSR2'); // the fixture service throws from outside any handler
    expect(await svc.exited).toBe(1);
    expect(svc.output()).toContain('outside any handler: unblamed error from the SIGUSR2 test hook');
    // Released before the exit, not left to their leases: pending now, nothing charged.
    expect((await rowsOf(ten)).map((r) => [r.status, r.attempts, r.charged_attempts])).toEqual(ten.map(() => ['pending', 1, 0]));
    const outcomes = await c.query(`SELECT outcome, count(*)::int AS n FROM action_attempts WHERE action_id = ANY($1::bigint[]) GROUP BY outcome`, [ten]);
    expect(outcomes.rows).toEqual([{ outcome: 'released', n: 10 }]);
  });
});
