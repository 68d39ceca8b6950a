import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QUEUE_DATA_SOURCE } from '../../database/queue-data-source.token';
import { ActionHandlersRegistry } from '../../handlers/action-handlers.registry';
import { GroupPauseResource, GroupResource, GroupStoredStateSummary } from '../action.resource';
import { SELECT_GROUP_STORED_STATE_SQL } from '../sql/group-handler-state.sql';
import { lockIdProblem } from '../dto/lock-id.validator';
import { internedLockId } from '../group-key.lookup';
import { BoundedActionReader } from '../reads/bounded-action.reader';
import { SELECT_GROUP_PAUSE_SQL, SELECT_GROUP_SQL, SELECT_LOCK_ID_GROUP_KEY_SQL } from '../sql/manage-actions.sql';

/**
 * One group's state, named by its lock id or its string key: its head,
 * whether it runs, how many wait, and whether (and why) it is blocked
 * (`GET /groups/:lockId`, `GET /groups/by-key/:groupKey`).
 */
@Injectable()
export class GroupStateService {
  constructor(
    @Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly registry: ActionHandlersRegistry,
    private readonly bounded: BoundedActionReader,
  ) {}

  /**
   * The group of `lockId`.
   * @throws BadRequestException (400) naming `lockId` when it is not a signed 64-bit integer.
   */
  async group(lockId: string): Promise<GroupResource> {
    const problem = lockIdProblem(lockId);
    if (problem) throw new BadRequestException([`lockId ${problem}`]);
    const canonical = BigInt(lockId).toString();
    const [key]: { group_key: string }[] = await this.dataSource.query(SELECT_LOCK_ID_GROUP_KEY_SQL, [canonical]);
    return this.groupState(canonical, key?.group_key ?? null);
  }

  /**
   * The group a string key names (its `lockId` is the one the database interned the key under).
   * @throws BadRequestException (400) for a malformed key; NotFoundException (404) when no action ever used it.
   */
  async groupByKey(groupKey: string): Promise<GroupResource> {
    const interned = await internedLockId((sql, params) => this.dataSource.query(sql, params), groupKey);
    if (interned === null) throw new NotFoundException(`groupKey ${JSON.stringify(groupKey)} has never been used`);
    return this.groupState(interned, groupKey);
  }

  /** The state of group `canonical` (a canonical lock id), named `groupKey` when it is string-keyed. */
  private async groupState(canonical: string, groupKey: string | null): Promise<GroupResource> {
    const [g]: { head_id: string | null; pending_count: number }[] = await this.dataSource.query(SELECT_GROUP_SQL, [canonical]);
    if (!g) {
      // A group can be paused before its first action (by key), so an empty one is checked too.
      const pausedBy = await this.pauseOf(canonical, null);
      return {
        lockId: canonical,
        groupKey,
        head: null,
        running: false,
        pendingCount: 0,
        blocked: false,
        blockedReason: null,
        paused: pausedBy !== null,
        pausedBy,
        storedState: await this.storedStateOf(canonical),
      };
    }
    // An oversize head is shown without its content: a group's state always answers.
    const head = g.head_id ? await this.bounded.readWithin(g.head_id) : null;
    let blockedReason: string | null = null;
    if (head?.status === 'failed') {
      blockedReason = `head action ${head.id} failed after ${head.attempts} attempt(s): ${head.contentOmitted ? `an error of ${head.contentBytes?.lastError} bytes (read it by SQL)` : (head.lastError ?? 'unknown error')}; retry or cancel it`;
    } else if (head?.status === 'pending' && !this.registry.has(head.type)) {
      blockedReason = `head action ${head.id} has type "${head.type}", which no handler of this instance runs`;
    }
    const pausedBy = await this.pauseOf(canonical, head?.type ?? null);
    return {
      lockId: canonical,
      groupKey,
      head,
      running: head?.status === 'running',
      pendingCount: g.pending_count,
      blocked: blockedReason !== null,
      blockedReason,
      paused: pausedBy !== null,
      pausedBy,
      storedState: await this.storedStateOf(canonical),
    };
  }

  /** The version and last change of the state the group's handlers stored, or null. */
  private async storedStateOf(lockId: string): Promise<GroupStoredStateSummary | null> {
    const [s]: { version: string; updated_at: Date }[] = await this.dataSource.query(SELECT_GROUP_STORED_STATE_SQL, [lockId]);
    return s ? { version: Number(s.version), updatedAt: s.updated_at.toISOString() } : null;
  }

  /** The active pause holding group `lockId` back (its own, `headType`'s, the queue's), or null. */
  private async pauseOf(lockId: string, headType: string | null): Promise<GroupPauseResource | null> {
    const [p]: { id: string; scope: GroupPauseResource['scope']; reason: string | null; until: Date | null }[] = await this.dataSource.query(
      SELECT_GROUP_PAUSE_SQL,
      [lockId, headType],
    );
    return p ? { id: p.id, scope: p.scope, reason: p.reason, until: p.until ? p.until.toISOString() : null } : null;
  }
}
