import { BadRequestException, Inject, Injectable, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { QUEUE_DATA_SOURCE } from '../../database/queue-data-source.token';
import { lockIdProblem } from '../dto/lock-id.validator';
import { internedLockId } from '../group-key.lookup';
import { DELETE_GROUP_HANDLER_STATE_SQL, SELECT_GROUP_HANDLER_STATE_SQL } from '../sql/group-handler-state.sql';
import { GroupHandlerStateResource } from './group-handler-state.resource';

/** Room kept in MAX_RESPONSE_BYTES for the resource's other fields (lock id, version, time). */
const RESOURCE_OVERHEAD_BYTES = 256;

/**
 * The state handlers store per group with `ctx.groupState`, by lock id or
 * string key: read it (`GET /groups/:lockId/state`) or delete it
 * (`DELETE ...`, an operator's reset: the group's next action that sets a
 * state starts again at version 1).
 */
@Injectable()
export class GroupHandlerStateService {
  /** The largest state an answer carries (bytes of JSON text). */
  private readonly stateLimitBytes: number;

  constructor(
    @Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(SETTINGS) private readonly settings: QueueSettings,
  ) {
    this.stateLimitBytes = settings.MAX_RESPONSE_BYTES - RESOURCE_OVERHEAD_BYTES;
  }

  /**
   * @param lockId the group (signed 64-bit integer, decimal).
   * @throws BadRequestException (400) naming `lockId`; NotFoundException (404) when the group has no state;
   *   PayloadTooLargeException (413) when the state is over MAX_RESPONSE_BYTES (the message says how to read it with SQL).
   */
  async get(lockId: string): Promise<GroupHandlerStateResource> {
    const canonical = this.canonical(lockId);
    return this.read(canonical, `group ${canonical}`);
  }

  /** The state of the group `canonical`; `named` is how a 404 names it (the caller's words: its lock id or its key). */
  private async read(canonical: string, named: string): Promise<GroupHandlerStateResource> {
    const [row]: { lock_id: string; state: unknown; version: string; updated_at: Date; bytes: number }[] = await this.dataSource.query(
      SELECT_GROUP_HANDLER_STATE_SQL,
      [canonical, this.stateLimitBytes],
    );
    if (!row) throw new NotFoundException(`${named} has no state`);
    if (row.bytes > this.stateLimitBytes) {
      throw new PayloadTooLargeException(
        `the state of ${named} is ${row.bytes} bytes as JSON, over MAX_RESPONSE_BYTES (${this.settings.MAX_RESPONSE_BYTES}); read it with SQL: SELECT state FROM action_group_states WHERE lock_id = ${canonical}`,
      );
    }
    return { lockId: row.lock_id, state: row.state, version: Number(row.version), updatedAt: row.updated_at.toISOString() };
  }

  /**
   * @throws BadRequestException (400) for a malformed key; NotFoundException (404) when the key was never used or its group has no state.
   */
  async getByKey(groupKey: string): Promise<GroupHandlerStateResource> {
    return this.read(await this.lockIdOfKey(groupKey), `groupKey ${JSON.stringify(groupKey)}`);
  }

  /**
   * Deletes the group's state.
   * @throws BadRequestException (400) naming `lockId`; NotFoundException (404) when the group has no state.
   */
  async delete(lockId: string): Promise<void> {
    const canonical = this.canonical(lockId);
    return this.remove(canonical, `group ${canonical}`);
  }

  /** Deletes the state of the group `canonical`; `named` as in {@link read}. */
  private async remove(canonical: string, named: string): Promise<void> {
    const rows: unknown[] = await this.dataSource.query(DELETE_GROUP_HANDLER_STATE_SQL, [canonical]);
    // TypeORM answers a DELETE ... RETURNING with [rows, count].
    const deleted = Array.isArray(rows[0]) ? (rows[0] as unknown[]).length : rows.length;
    if (deleted === 0) throw new NotFoundException(`${named} has no state`);
  }

  /** See {@link delete}; by string key. */
  async deleteByKey(groupKey: string): Promise<void> {
    return this.remove(await this.lockIdOfKey(groupKey), `groupKey ${JSON.stringify(groupKey)}`);
  }

  private canonical(lockId: string): string {
    const problem = lockIdProblem(lockId);
    if (problem) throw new BadRequestException([`lockId ${problem}`]);
    return BigInt(lockId).toString();
  }

  private async lockIdOfKey(groupKey: string): Promise<string> {
    const interned = await internedLockId((sql, params) => this.dataSource.query(sql, params), groupKey);
    if (interned === null) throw new NotFoundException(`groupKey ${JSON.stringify(groupKey)} has never been used`);
    return interned;
  }
}
