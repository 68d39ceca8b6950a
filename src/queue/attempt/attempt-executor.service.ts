import { Inject, Injectable, Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { QUEUE_DATA_SOURCE } from '../../database/queue-data-source.token';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { AttemptTrace, QueueSpans } from '../../tracing/queue-spans';
import type { AttemptEnd } from './attempt-end';
import { QueueEventSink } from '../../events/queue-event-sink';
import { publishAttemptEnd } from './attempt-end-events';
import { AttemptFinisher, FinishResult } from './attempt-finisher.service';
import { AttemptRunner } from './attempt-runner.service';
import { CancelRequestedError } from '../instance/abort-reasons';
import { HandlerStop } from '../instance/handler-stop';
import { HeldLease, LeaseKeeper } from '../lease/lease-keeper.service';
import { monotonicNow } from '../instance/monotonic-clock';
import { LeasedActionRow } from '../sql/leased-action.sql';
import { LeasedUnit } from '../instance/leased-units';
import { TypeBackOff } from '../claim/type-back-off.service';
import { WorkerMetrics } from '../instance/worker-metrics';
import { WorkerSlots } from '../instance/worker-slots';
import { WORKER_ID } from '../instance/worker-id.token';
import { TransactionalCompletion } from './transactional-completion';

/** What follows an attempt: the actions its finishing statement took for this worker, and when to look for a retry. */
export interface Continuation {
  /** Leased to this worker, one slot occupied per unit: execute them. */
  next: LeasedUnit[];
  /** When their leases were granted at the earliest (monotonic ms). */
  leasedAt: number;
  /** The action was scheduled for a retry in this many ms. */
  retryInMs?: number;
}

/**
 * Takes one leased action through one attempt: keeps its lease alive
 * (LeaseKeeper), runs it (AttemptRunner), records how it ended
 * (AttemptFinisher), frees its slot when the handler has returned, and
 * reports the recorded end to the lifecycle events (posted, never awaited). The
 * flow is one-way: what the finishing statement took for this worker comes
 * back as the result, for the caller to execute next.
 */
@Injectable()
export class AttemptExecutor {
  private readonly logger = new Logger(AttemptExecutor.name);
  private active = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly leases: LeaseKeeper,
    private readonly runner: AttemptRunner,
    private readonly finisher: AttemptFinisher,
    private readonly slots: WorkerSlots,
    private readonly metrics: WorkerMetrics,
    private readonly typeBackOff: TypeBackOff,
    private readonly spans: QueueSpans,
    private readonly events: QueueEventSink,
    @Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(WORKER_ID) private readonly workerId: string,
    @Inject(SETTINGS) private readonly settings: QueueSettings,
  ) {}

  /** Attempts not recorded yet. */
  get activeAttempts(): number {
    return this.active;
  }

  /** Resolves when no attempt is active. */
  whenIdle(): Promise<void> {
    return this.active === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Runs one attempt of `row`, whose slot is occupied already.
   * @param leasedAt when its lease was granted at the earliest (monotonic ms: when the claim was sent).
   * @param startWhen holds the handler back until it resolves to null (see AttemptRunner.run); the lease is kept meanwhile.
   * @returns what to execute next; never rejects.
   */
  async execute(row: LeasedActionRow, leasedAt: number, startWhen?: Promise<Error | null>): Promise<Continuation> {
    this.active++;
    try {
      return await this.attempt(row, leasedAt, startWhen);
    } finally {
      if (--this.active === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
    }
  }

  /**
   * Runs one attempt of each action of an ordered chunk (one call of its
   * handler), whose slot is occupied already: every row's lease is kept alive
   * and fenced together, and their ends are written by one statement.
   * @param rows the chunk: its first action (the group's head), then its members, ids ascending.
   * @param leasedAt when their leases were granted at the earliest (monotonic ms).
   * @returns what to execute next; never rejects.
   */
  async executeChunk(rows: LeasedActionRow[], leasedAt: number): Promise<Continuation> {
    this.active++;
    try {
      return await this.chunkAttempt(rows, leasedAt);
    } finally {
      if (--this.active === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
    }
  }

  private async chunkAttempt(rows: LeasedActionRow[], leasedAt: number): Promise<Continuation> {
    const head = rows[0];
    const timing = this.leases.leaseTiming;
    const handlerStop = new HandlerStop();
    const leases: HeldLease[] = rows.map((row) => ({
      actionId: row.id,
      attempt: row.attempts,
      deadline: leasedAt + timing.leaseMs,
      handlerStop,
      ended: false,
    }));
    for (const lease of leases) this.leases.track(lease);
    for (const row of rows) this.metrics.claimed(row.type);
    this.metrics.chunkStarted(head.type, rows.length);
    this.slots.handlerStarting(head.id);
    const startedAt = performance.now();
    const traced = this.spans.startAttempt(rows);
    const run = await this.spans.within(traced, () => this.runner.runChunk(rows, handlerStop));
    for (const lease of leases) lease.ended = true;
    const seconds = (performance.now() - startedAt) / 1000;
    run.ends.forEach((end, i) => {
      if (i === 0) this.metrics.handled(rows[i].type, end ? end.kind : 'abandoned', seconds);
      else this.metrics.ended(rows[i].type, end ? end.kind : 'abandoned');
      if (end && end.outcome !== 'done' && end.kind !== 'released') this.logFailure(rows[i], end.kind, end.error, end.delayMs);
    });
    if (!run.settledAtEnd) this.watchStuck(head, run.settled, 'aborted');
    const freesSlot = run.settledAtEnd && this.slots.freesSlotWhenSettled(head.id);
    const pauseTypeMs = run.ends.find((end) => end?.pauseTypeMs !== undefined)?.pauseTypeMs;
    if (pauseTypeMs !== undefined) await this.typeBackOff.pause(head.type, pauseTypeMs, head.id);
    const items = rows.flatMap((row, i) => {
      const end = run.ends[i];
      return end ? [{ actionId: row.id, attempt: row.attempts, end, chunkOf: head.id }] : [];
    });
    // The deadline shared by every lease of the chunk (one heartbeat renews them all).
    const deadline = () => Math.min(...leases.map((lease) => lease.deadline));
    let result: FinishResult = { recorded: false, recordedEach: [], next: [], sentAt: monotonicNow() };
    if (items.length > 0) result = await this.spans.traceFinish(traced, () => this.finisher.finishUnit(items, freesSlot, deadline));
    this.endSpan(traced, run.ends[0], items.length > 0 && result.recorded);
    // After the commit, each member the fence accepted (items keep the rows' order, skipping those with no end).
    const ended = rows.filter((_row, i) => run.ends[i]);
    items.forEach((item, i) => {
      if (result.recordedEach[i]) publishAttemptEnd(this.events, ended[i], item.end);
    });
    leases.forEach((lease, i) => {
      this.leases.untrack(lease);
      if (!run.ends[i]) this.leases.leaveToExpire(lease);
    });
    if (run.settledAtEnd) this.slots.handlerSettled(head.id);
    if (items.length > 0 && !result.recorded) {
      this.metrics.fenced();
      this.logger.warn(`Discarded the outcomes of the chunk of ${rows.length} from action ${head.id}: its leases were lost (another attempt owns them now)`);
    }
    const retry = items.find((item) => item.end.kind === 'retry');
    return { next: result.next, leasedAt: result.sentAt, retryInMs: result.recorded && retry ? retry.end.delayMs : undefined };
  }

  private async attempt(row: LeasedActionRow, leasedAt: number, startWhen?: Promise<Error | null>): Promise<Continuation> {
    const timing = this.leases.leaseTiming;
    const lease: HeldLease = { actionId: row.id, attempt: row.attempts, deadline: leasedAt + timing.leaseMs, handlerStop: new HandlerStop(), ended: false };
    this.leases.track(lease);
    this.metrics.claimed(row.type);
    this.slots.handlerStarting(row.id);
    const startedAt = performance.now();
    // The handler runs inside its attempt's span (a no-op without an OpenTelemetry SDK).
    const traced = this.spans.startAttempt([row]);
    // (A claim answered so late that the lease could expire soon is aborted by the LeaseKeeper's next fence check.)
    // Once ctx.transaction commits, the action is no longer this worker's: its lease is not renewed or fenced.
    const completion = new TransactionalCompletion(
      this.dataSource,
      this.workerId,
      row,
      this.settings.GROUP_STATE_MAX_BYTES,
      () => (lease.ended = true),
      this.settings.LEASE_MS,
    );
    const run = await this.spans.within(traced, () => this.runner.run(row, lease.handlerStop, startWhen, completion));
    lease.ended = true;
    const seconds = (performance.now() - startedAt) / 1000;
    this.metrics.handled(row.type, run.end ? run.end.kind : 'abandoned', seconds);
    if (run.end && run.end.outcome !== 'done' && run.end.kind !== 'released') this.logFailure(row, run.end.kind, run.end.error, run.end.delayMs);
    if (!run.settledAtEnd) this.watchStuck(row, run.settled, run.end?.outcome ?? 'aborted');
    let result: FinishResult = { recorded: false, recordedEach: [], next: [], sentAt: monotonicNow() };
    // Its slot frees with it only when no earlier (stuck) handler of the action shares it.
    const freesSlot = run.settledAtEnd && this.slots.freesSlotWhenSettled(row.id);
    if (run.end?.pauseTypeMs !== undefined) await this.typeBackOff.pause(row.type, run.end.pauseTypeMs, row.id);
    let end = run.end;
    if (run.recordedInTransaction) result = { recorded: true, recordedEach: [true], next: [], sentAt: result.sentAt };
    else if (end) {
      const ending = end;
      result = await this.spans.traceFinish(traced, () =>
        this.finisher.finish({ actionId: row.id, attempt: row.attempts, end: ending }, freesSlot, () => lease.deadline),
      );
    }
    // A transaction that committed while this end was being written: the database kept its done (the fence refused this end).
    if (!result.recorded && completion.committed) {
      result = { ...result, recorded: true, recordedEach: [true] };
      end = { kind: 'done', outcome: 'done', resultJson: completion.resultJson ?? 'null' };
    }
    this.endSpan(traced, end, result.recorded);
    // After the commit (the finisher resolves once its statement committed), and only for an end the fence accepted.
    if (end && result.recorded) publishAttemptEnd(this.events, row, end);
    this.leases.untrack(lease);
    if (!run.end) this.leases.leaveToExpire(lease);
    if (!run.end && !run.settledAtEnd && run.cause instanceof CancelRequestedError) this.cancelWhenReturned(row, run.settled, lease, run.cause);
    if (run.settledAtEnd) this.slots.handlerSettled(row.id);
    if (end && !result.recorded) {
      this.metrics.fenced();
      // A returned handler whose outcome is refused: the action runs again, the at-least-once case (docs/guarantees.md).
      this.logger.warn(
        `Discarded the ${end.kind} outcome of action ${row.id} attempt ${row.attempts}: the lease was lost (another attempt owns it now)${end.kind === 'done' ? '; the action runs again (at-least-once)' : ''}`,
      );
    }
    const retryInMs = result.recorded && run.end?.kind === 'retry' ? run.end.delayMs : undefined;
    return { next: result.next, leasedAt: result.sentAt, retryInMs };
  }

  /**
   * A cancelled handler that ignored its signal past the grace: once it
   * returns, its cancel is recorded (fenced by its attempt, as any finish), so
   * that its group moves on then, not when its lease expires. Until it returns
   * nothing is recorded: its code may still run (G2). A lease already reaped
   * refuses the write (it was recorded as cancelled by the reaper).
   */
  private cancelWhenReturned(row: LeasedActionRow, settled: Promise<void>, lease: HeldLease, reason: CancelRequestedError): void {
    void settled.then(async () => {
      const end: AttemptEnd = { kind: 'cancelled', outcome: 'cancelled', error: `${reason.message}; the handler stopped after its grace` };
      const result = await this.finisher.finishDetached({ actionId: row.id, attempt: row.attempts, end }, () => lease.deadline);
      if (result.recorded) publishAttemptEnd(this.events, row, end);
    });
  }

  /** Ends an attempt's span: its recorded outcome (`lost` when nothing was recorded), an error status when it failed. */
  private endSpan(traced: AttemptTrace | null, end: AttemptEnd | null | undefined, recorded: boolean): void {
    if (!traced) return;
    if (!end || !recorded) return this.spans.endAttempt(traced, 'lost');
    this.spans.endAttempt(traced, end.outcome, end.kind === 'retry' || end.kind === 'failed' ? (end.error ?? end.outcome) : undefined);
  }

  private logFailure(row: LeasedActionRow, kind: string, error: string | undefined, delayMs: number | undefined): void {
    const next = kind === 'retry' ? `retry in ${delayMs} ms` : kind;
    this.logger.warn(`Attempt ${row.attempts} of action ${row.id} (type ${row.type}, lock ${row.lock_id ?? '-'}) ended: ${next}: ${error ?? 'no message'}`);
  }

  /** A handler that did not return when its attempt ended keeps its action's slot until it does; counted, and logged once each way. */
  private watchStuck(row: LeasedActionRow, settled: Promise<void>, why: string): void {
    const since = monotonicNow();
    this.slots.markStuck(row.id, 1);
    this.metrics.stuckHandlers(this.slots.stuck);
    this.logger.warn(
      `Handler of action ${row.id} (type ${row.type}, attempt ${row.attempts}) ignored its abort signal (${why}) and is still running; its slot stays taken until it returns, and its result will be discarded`,
    );
    void settled.then(() => {
      this.slots.markStuck(row.id, -1);
      this.metrics.stuckHandlers(this.slots.stuck);
      this.slots.handlerSettled(row.id);
      this.logger.warn(
        `Handler of action ${row.id} attempt ${row.attempts} returned ${Math.round(monotonicNow() - since)} ms after its attempt ended; result discarded`,
      );
    });
  }
}
