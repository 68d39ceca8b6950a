import { checkTrace, Queryable, TraceOutcome } from './trace-checker';

/**
 * The oracle itself, fed known violations: a dozen specs trust checkTrace for
 * order, overlaps and exactly-once, so each kind of violation must be caught
 * here. Each case was seen to fail against a deliberately broken checker,
 * one break at a time: the order walk's violation dropped, the overlap
 * excuse inverted (`if (excused)`), the lost check never matching, and
 * "done twice" counted only from three done rows. The three chunk cases below
 * fail against the chunk rules of migration 042's checker (any attempt of the
 * earlier action in the chunk excused a member; the first action and the
 * worker made a chunk, whatever its lease), the first one also with only
 * the check of what the member released dropped.
 */

interface ActionRow {
  id: string;
  lock_id: string | null;
  type: string;
  status: string;
  on_failure: string;
  attempts: number;
  lease_owner: string | null;
  finished_us: string | null;
  attempt_started_us: string | null;
}
interface AttemptRow {
  action_id: string;
  lock_id: string | null;
  attempt: number;
  worker_id: string;
  started_us: string;
  finished_us: string;
  outcome: TraceOutcome;
}

/** A Queryable answering the checker's two reads (actions, then action_attempts) with the given rows. */
function fakeDb(actions: ActionRow[], attempts: AttemptRow[]): Queryable {
  return {
    query: (text: string) => Promise.resolve({ rows: (/FROM action_attempts/.test(text) ? attempts : actions) as never[] }),
  };
}

/** An action of group `lock` that ran once, done, from `from` to `to` (µs). */
function doneAction(id: string, lock: string | null, from: number, to: number, worker = 'w1'): { action: ActionRow; attempt: AttemptRow } {
  return {
    action: {
      id,
      lock_id: lock,
      type: 't',
      status: 'done',
      on_failure: 'block',
      attempts: 1,
      lease_owner: null,
      finished_us: String(to),
      attempt_started_us: null,
    },
    attempt: { action_id: id, lock_id: lock, attempt: 1, worker_id: worker, started_us: String(from), finished_us: String(to), outcome: 'done' },
  };
}

function trace(...runs: { action: ActionRow; attempt: AttemptRow }[]): [ActionRow[], AttemptRow[]] {
  return [runs.map((r) => r.action), runs.map((r) => r.attempt)];
}

describe('checkTrace: the oracle catches what it is trusted to catch', () => {
  it('passes a clean trace: one group in order, another in parallel', async () => {
    const [actions, attempts] = trace(doneAction('1', '7', 100, 200), doneAction('2', '7', 200, 300), doneAction('3', '8', 150, 250, 'w2'));
    const report = await checkTrace(fakeDb(actions, attempts));
    expect(report).toMatchObject({ ok: true, actionCount: 3, attemptCount: 3, doneByWorker: { w1: 2, w2: 1 } });
  });

  it('catches an order inversion: a later action of the group started before an earlier one released it', async () => {
    // Action 2 ran entirely before action 1 (no overlap), which is still an order violation.
    const [actions, attempts] = trace(doneAction('1', '7', 300, 400), doneAction('2', '7', 100, 200));
    const report = await checkTrace(fakeDb(actions, attempts));
    expect(report.ok).toBe(false);
    expect(report.overlaps).toEqual([]);
    expect(report.orderViolations).toEqual([expect.objectContaining({ lockId: '7', blockingActionId: '1', blockingReleasedUs: 400 })]);
    expect(report.orderViolations[0].attempt.actionId).toBe('2');
  });

  it('catches an attempt started while an earlier action of its group still holds it (never released)', async () => {
    const first = doneAction('1', '7', 100, 200);
    first.action.status = 'pending';
    first.attempt.outcome = 'error';
    const [actions, attempts] = trace(first, doneAction('2', '7', 300, 400));
    const report = await checkTrace(fakeDb(actions, attempts), { expectDone: 'none' });
    expect(report.orderViolations).toEqual([
      expect.objectContaining({ lockId: '7', blockingActionId: '1', blockingStatus: 'pending', blockingReleasedUs: null }),
    ]);
  });

  it('lets the actions of one ordered chunk overlap and start together, and still catches a chunk that ran past an unfinished action', async () => {
    const inChunk = (run: { action: ActionRow; attempt: AttemptRow }, chunkOf: string, worker = 'w1') => {
      (run.attempt as AttemptRow & { chunk_of: string }).chunk_of = chunkOf;
      run.attempt.worker_id = worker;
      return run;
    };
    // Actions 1-3 leased together at 100, recorded together at 300-302.
    const chunk = [inChunk(doneAction('1', '7', 100, 300), '1'), inChunk(doneAction('2', '7', 101, 301), '1'), inChunk(doneAction('3', '7', 102, 302), '1')];
    const [actions, attempts] = trace(...chunk);
    expect((await checkTrace(fakeDb(actions, attempts))).ok).toBe(true);
    // Another worker's chunk overlapping it is an overlap; a member not in the chunk of the action before it is an order violation.
    const [a2, t2] = trace(inChunk(doneAction('1', '7', 100, 300), '1'), inChunk(doneAction('2', '7', 150, 350), '2', 'w2'));
    const crossed = await checkTrace(fakeDb(a2, t2));
    expect(crossed.overlaps).toHaveLength(1);
    expect(crossed.orderViolations).toEqual([expect.objectContaining({ lockId: '7', blockingActionId: '1' })]);
  });

  /** An attempt row of an ordered chunk whose first action is `chunkOf`. */
  const chunkAttempt = (
    id: string,
    attempt: number,
    chunkOf: string | null,
    worker: string,
    from: number,
    to: number,
    outcome: TraceOutcome,
  ): AttemptRow & { chunk_of: string | null } => ({
    action_id: id,
    lock_id: '7',
    attempt,
    worker_id: worker,
    started_us: String(from),
    finished_us: String(to),
    outcome,
    chunk_of: chunkOf,
  });

  it('catches a member of a chunk recorded done ahead of an earlier member that its chunk lost and that ran again after it', async () => {
    // Missed while a member's attempt was excused by any attempt of the earlier action in its chunk (the check of
    // what it released, dropped, passes this trace).
    const head = doneAction('1', '7', 600, 700, 'w2');
    head.action.attempts = 2;
    const member = doneAction('2', '7', 101, 300);
    const attempts = [
      chunkAttempt('1', 1, '1', 'w1', 100, 500, 'lease_expired'),
      chunkAttempt('1', 2, null, 'w2', 600, 700, 'done'),
      chunkAttempt('2', 1, '1', 'w1', 101, 300, 'done'),
    ];
    const report = await checkTrace(fakeDb([head.action, member.action], attempts));
    expect(report.overlaps).toEqual([]);
    expect(report.orderViolations).toEqual([expect.objectContaining({ lockId: '7', blockingActionId: '1', blockingReleasedUs: 700 })]);
    expect(report.orderViolations[0].attempt).toMatchObject({ actionId: '2', attempt: 1, outcome: 'done' });
    // Recorded in the same chunk as a done first action, it is in order.
    const [actions] = trace(doneAction('1', '7', 100, 300), doneAction('2', '7', 101, 301));
    const ok = await checkTrace(fakeDb(actions, [chunkAttempt('1', 1, '1', 'w1', 100, 300, 'done'), chunkAttempt('2', 1, '1', 'w1', 101, 301, 'done')]));
    expect(ok.ok).toBe(true);
  });

  it('tells two chunks the same worker took from one first action apart: a member still held from the first overlaps the second', async () => {
    // Missed while attempts with the same first action and worker counted as one chunk whatever their leases.
    const head = doneAction('1', '7', 300, 400);
    head.action.attempts = 2;
    const member = doneAction('2', '7', 500, 600);
    member.action.attempts = 2;
    const attempts = [
      chunkAttempt('1', 1, '1', 'w1', 100, 200, 'released'), // its lease given up alone
      chunkAttempt('2', 1, '1', 'w1', 101, 350, 'lease_expired'), // still leased until the reaper took it
      chunkAttempt('1', 2, '1', 'w1', 300, 400, 'done'), // the head again, in a new chunk of its own
      chunkAttempt('2', 2, null, 'w1', 500, 600, 'done'),
    ];
    const report = await checkTrace(fakeDb([head.action, member.action], attempts));
    expect(report.overlaps.map((o) => `${o.first.actionId}#${o.first.attempt}/${o.second.actionId}#${o.second.attempt}`)).toEqual(['2#1/1#2']);
    expect(report.orderViolations).toEqual([]);
  });

  it('takes the actions of one chunk as one lease whatever the order of their start stamps', async () => {
    // A false order violation while a member had to start after the earlier members it was checked against.
    const [actions] = trace(doneAction('1', '7', 100, 300), doneAction('2', '7', 102, 301), doneAction('3', '7', 101, 302));
    const attempts = [
      chunkAttempt('1', 1, '1', 'w1', 100, 300, 'done'),
      chunkAttempt('2', 1, '1', 'w1', 102, 301, 'done'),
      chunkAttempt('3', 1, '1', 'w1', 101, 302, 'done'),
    ];
    const report = await checkTrace(fakeDb(actions, attempts));
    expect(report.orderViolations).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('catches an overlap of two attempts of one group', async () => {
    // Action 2 also starts before action 1 released the group (an order violation too); the overlap is what this case checks.
    const [actions, attempts] = trace(doneAction('1', '7', 100, 300), doneAction('2', '7', 250, 400, 'w2'));
    const report = await checkTrace(fakeDb(actions, attempts));
    expect(report.overlaps).toEqual([expect.objectContaining({ lockId: '7' })]);
    expect([report.overlaps[0].first.actionId, report.overlaps[0].second.actionId]).toEqual(['1', '2']);
    expect(report.ok).toBe(false);
  });

  it('catches an overlap with an attempt still running (open-ended)', async () => {
    const running = doneAction('1', '7', 100, 0);
    running.action.status = 'running';
    running.action.attempt_started_us = '100';
    running.action.lease_owner = 'w1';
    running.action.finished_us = null;
    const other = doneAction('2', '7', 5_000, 6_000, 'w2');
    const report = await checkTrace(fakeDb([running.action, other.action], [other.attempt]), { expectDone: 'none' });
    expect(report.overlaps).toEqual([expect.objectContaining({ lockId: '7' })]);
    expect(report.overlaps[0].first).toMatchObject({ actionId: '1', outcome: 'running', finishedUs: Infinity });
  });

  it('excuses only the retry of the same action after lease_expired, and only when that outcome is not excluded', async () => {
    const { action } = doneAction('1', '7', 100, 400);
    action.attempts = 2;
    const lost: AttemptRow = { action_id: '1', lock_id: '7', attempt: 1, worker_id: 'w1', started_us: '100', finished_us: '500', outcome: 'lease_expired' };
    const retry: AttemptRow = { action_id: '1', lock_id: '7', attempt: 2, worker_id: 'w2', started_us: '300', finished_us: '400', outcome: 'done' };
    expect((await checkTrace(fakeDb([action], [lost, retry]))).overlaps).toEqual([]);
    // Another action of the group starting during the expired attempt is an overlap all the same.
    const next = doneAction('2', '7', 450, 600, 'w2');
    const report = await checkTrace(fakeDb([action, next.action], [lost, retry, next.attempt]));
    expect(report.overlaps.map((o) => `${o.first.actionId}#${o.first.attempt}/${o.second.actionId}#${o.second.attempt}`)).toEqual(['1#1/2#1']);
    // With VALID_LEASE_OUTCOMES-style filtering the expired attempt does not count.
    expect((await checkTrace(fakeDb([action, next.action], [lost, retry, next.attempt]), { overlapOutcomes: ['done'] })).overlaps).toEqual([]);
  });

  it('catches a lost action, and a missing id, under each form of expectDone', async () => {
    const pending = doneAction('2', '7', 0, 0);
    pending.action.status = 'pending';
    pending.action.finished_us = null;
    const actions = [doneAction('1', '7', 100, 200).action, pending.action];
    const attempts = [doneAction('1', '7', 100, 200).attempt];
    expect((await checkTrace(fakeDb(actions, attempts))).lost).toEqual([{ actionId: '2', lockId: '7', status: 'pending' }]);
    expect((await checkTrace(fakeDb(actions, attempts), { expectDone: ['1', '2', '9'] })).lost).toEqual([
      { actionId: '2', lockId: '7', status: 'pending' },
      { actionId: '9', lockId: null, status: 'missing' },
    ]);
    expect((await checkTrace(fakeDb(actions, attempts), { expectDone: (a) => a.id === '2' })).lost).toHaveLength(1);
    expect((await checkTrace(fakeDb(actions, attempts), { expectDone: 'none' })).lost).toEqual([]);
  });

  it('catches an action done twice, and one done without a done trace row', async () => {
    const twice = doneAction('1', null, 100, 200);
    twice.action.attempts = 2;
    const again: AttemptRow = { ...twice.attempt, attempt: 2, started_us: '300', finished_us: '400', worker_id: 'w2' };
    const silent = doneAction('2', null, 100, 200);
    const report = await checkTrace(fakeDb([twice.action, silent.action], [twice.attempt, again]));
    expect(report.doneMoreThanOnce).toEqual([{ actionId: '1', doneRows: 2 }]);
    expect(report.doneWithoutTrace).toEqual([{ actionId: '2', doneRows: 0 }]);
    expect(report.ok).toBe(false);
  });

  it('checks only the groups asked for', async () => {
    const [actions, attempts] = trace(doneAction('1', '7', 100, 300), doneAction('2', '7', 250, 400), doneAction('3', '8', 0, 50));
    expect((await checkTrace(fakeDb(actions, attempts), { lockIds: ['8'] })).ok).toBe(true);
    expect((await checkTrace(fakeDb(actions, attempts), { lockIds: ['7'] })).ok).toBe(false);
  });
});
