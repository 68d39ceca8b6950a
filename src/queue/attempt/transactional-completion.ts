import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { GroupState } from '../../handlers/action-context.interface';
import { ActionFencedError } from '../../handlers/action-fenced.error';
import { ActionTransactionMisuseError } from '../../handlers/action-transaction-misuse.error';
import { toResultJson } from '../outcome/handler-result';
import { FINISH_CHUNKS_SQL, FinishAttemptsRow } from '../sql/finish-attempts.sql';
import { LeasedActionRow } from '../sql/leased-action.sql';
import { LOCK_GROUP_SQL, OWNER_CHECK_SQL, OwnerCheckRow, READ_GROUP_STATE_SQL, WRITE_GROUP_STATE_SQL } from '../sql/transactional-completion.sql';
import { groupStateJson } from './group-state-json';

/** Where a completion is: never opened, open (callback or commit under way), committed, or the attempt ended. */
type CompletionState = 'idle' | 'open' | 'committed' | 'closed';

/**
 * One attempt's `ctx.transaction`: the handler's writes and the action's
 * completion in one transaction (docs/handlers.md, "Completing in your own
 * transaction"). The fence is the finishing statement's own (aq_finish_attempts:
 * `lease_owner = this worker AND attempts = this attempt`, re-checked on the
 * newest row version under its row lock, held to the commit), so a holder
 * whose lease was reaped or taken over updates nothing and rolls back. A check
 * before the callback only fails early; no action row is locked while the
 * callback runs, so the heartbeat keeps extending the lease meanwhile.
 *
 * The group's lock row is taken with a plain FOR UPDATE before the finishing
 * statement (which skips groups locked by others and defers them): a producer
 * inserting into the group is waited for, within this transaction, instead of
 * a deferral this transaction could not retry.
 */
export class TransactionalCompletion {
  private state: CompletionState = 'idle';
  private closed = false;
  /** The open transaction's connection (while `open`). */
  private runner: QueryRunner | null = null;
  /** The group state set in the open transaction, as JSON text. */
  private pendingState: string | undefined;
  /** `ctx.groupState`: usable only while the transaction is open. */
  readonly groupState: GroupState = {
    get: <T>() => this.readGroupState<T>(),
    set: (value: unknown) => this.setGroupState(value),
  };
  private committedResult: string | null = null;

  /**
   * @param dataSource the queue's DataSource (the host app's when embedded).
   * @param workerId this instance's id (the lease owner).
   * @param row the leased action (its `attempts` is the fencing token).
   * @param maxStateBytes GROUP_STATE_MAX_BYTES.
   * @param onCommitted called once, right after the commit (the attempt is recorded: stop renewing its lease).
   * @param idleLimitMs LEASE_MS: the transaction's session is ended by the server after this long idle in it (OWNER_CHECK_SQL).
   */
  constructor(
    private readonly dataSource: DataSource,
    private readonly workerId: string,
    private readonly row: LeasedActionRow,
    private readonly maxStateBytes: number,
    private readonly onCommitted: () => void,
    private readonly idleLimitMs: number,
  ) {}

  /** Whether the action's completion committed in the handler's transaction. */
  get committed(): boolean {
    return this.state === 'committed';
  }

  /** The stored result (JSON text) of a committed completion. */
  get resultJson(): string | null {
    return this.committedResult;
  }

  /** The attempt has ended (the handler returned or was given up on): a later call is refused, an open one may not commit. */
  close(): void {
    this.closed = true;
    if (this.state === 'idle') this.state = 'closed';
  }

  /** See ActionContext.transaction. */
  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (typeof work !== 'function') throw new ActionTransactionMisuseError('ctx.transaction takes a function: ctx.transaction(async (manager) => { ... })');
    if (this.state === 'open')
      throw new ActionTransactionMisuseError(`ctx.transaction of action ${this.row.id} is already open: nested calls are not supported`);
    if (this.state === 'committed')
      throw new ActionTransactionMisuseError(`action ${this.row.id} was already completed by ctx.transaction: call it once per attempt`);
    if (this.state === 'closed' || this.closed) {
      throw new ActionTransactionMisuseError(
        `ctx.transaction of action ${this.row.id} attempt ${this.row.attempts} was called after its attempt ended; nothing was written`,
      );
    }
    this.state = 'open';
    this.pendingState = undefined;
    const runner = this.dataSource.createQueryRunner();
    this.runner = runner;
    let began = false;
    try {
      await runner.connect();
      await runner.startTransaction('READ COMMITTED');
      began = true;
      await this.checkOwner(runner);
      const value = await work(runner.manager);
      const resultJson = toResultJson(value);
      if (this.closed)
        throw new ActionFencedError(this.row.id, this.row.attempts, 'the attempt ended (timeout, abort or lease lost) while the transaction was open');
      await this.complete(runner, resultJson);
      await runner.commitTransaction();
      began = false;
      this.state = 'committed';
      this.committedResult = resultJson;
      this.onCommitted();
      return value;
    } catch (error) {
      if (began) await runner.rollbackTransaction().catch(() => undefined);
      this.state = this.closed ? 'closed' : 'idle';
      throw error;
    } finally {
      this.runner = null;
      this.pendingState = undefined;
      await runner.release();
    }
  }

  /** Fails early when the attempt no longer owns the action (the real fence is in complete()). */
  private async checkOwner(runner: QueryRunner): Promise<void> {
    const [owner] = (await runner.query(OWNER_CHECK_SQL, [this.row.id, String(this.idleLimitMs)])) as OwnerCheckRow[];
    const why = !owner
      ? 'the action no longer exists'
      : owner.status !== 'running' || owner.lease_owner !== this.workerId || owner.attempts !== this.row.attempts
        ? `it is ${owner.status}${owner.lease_owner ? ` and held by ${owner.lease_owner === this.workerId ? 'this worker' : 'another worker'} at attempt ${owner.attempts}` : ''}`
        : owner.cancel_requested
          ? 'cancellation was requested'
          : null;
    if (why) throw new ActionFencedError(this.row.id, this.row.attempts, why);
  }

  /** Records `done` with the worker's finishing statement in this transaction; throws when the fence refuses it. */
  private async complete(runner: QueryRunner, resultJson: string): Promise<void> {
    if (this.row.lock_id !== null) await runner.query(LOCK_GROUP_SQL, [this.row.lock_id]);
    // Before the fenced finish: a refused finish rolls the state back with everything else.
    if (this.pendingState !== undefined) await runner.query(WRITE_GROUP_STATE_SQL, [this.row.lock_id, this.pendingState]);
    // No types to take, no claim: hand-off and claims stay the worker's; the
    // promotion marks the group's next head and wakes the workers.
    const values = [
      this.workerId,
      [this.row.id],
      [this.row.attempts],
      ['done'],
      [resultJson],
      [null],
      [null],
      [0],
      ['done'],
      [0],
      [],
      [],
      0,
      0,
      [null],
      [],
      [],
    ];
    const rows = (await runner.query(FINISH_CHUNKS_SQL.text, values)) as FinishAttemptsRow[];
    const mine = rows.find((r) => r.kind !== 'claimed' && r.id === this.row.id);
    if (mine?.kind !== 'finished') {
      throw new ActionFencedError(this.row.id, this.row.attempts, 'its lease was lost (reaped or taken over by another attempt) before the commit');
    }
  }

  private async readGroupState<T>(): Promise<T | undefined> {
    const runner = this.openRunner('get');
    if (this.pendingState !== undefined) return JSON.parse(this.pendingState) as T;
    const [row] = (await runner.query(READ_GROUP_STATE_SQL, [this.row.lock_id])) as { state: T }[];
    return row ? row.state : undefined;
  }

  private setGroupState(value: unknown): void {
    this.openRunner('set');
    this.pendingState = groupStateJson(value, this.maxStateBytes, this.row.lock_id as string);
  }

  /** The open transaction's connection; refuses a use outside it or for an action without a group. */
  private openRunner(what: string): QueryRunner {
    if (this.row.lock_id === null) {
      throw new ActionTransactionMisuseError(`ctx.groupState.${what}(): action ${this.row.id} belongs to no group (no lockId), so it has no group state`);
    }
    if (this.state !== 'open' || !this.runner) {
      throw new ActionTransactionMisuseError(`ctx.groupState.${what}() works only inside ctx.transaction (action ${this.row.id}); nothing was written`);
    }
    return this.runner;
  }
}
