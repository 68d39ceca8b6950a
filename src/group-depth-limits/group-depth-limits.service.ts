import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QUEUE_DATA_SOURCE } from '../database/queue-data-source.token';
import { ACTION_TYPE_PATTERN } from '../vocabulary';
import { GroupDepthLimitResource, GroupDepthLimitRow, toGroupDepthLimitResource } from './group-depth-limit.resource';
import { DELETE_GROUP_DEPTH_LIMIT_SQL, LIST_GROUP_DEPTH_LIMITS_SQL, UPSERT_GROUP_DEPTH_LIMIT_SQL } from './sql/group-depth-limits.sql';

/**
 * Reads and changes the maximum group depths, which live in the database
 * (action_group_depth_limits) so every instance and every SQL producer obeys
 * them at once; the insert trigger of 035-group-depth-limits enforces them.
 */
@Injectable()
export class GroupDepthLimitsService {
  constructor(@Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource) {}

  /** Every limit, the global one first. */
  async list(): Promise<{ items: GroupDepthLimitResource[] }> {
    const rows: GroupDepthLimitRow[] = await this.dataSource.query(LIST_GROUP_DEPTH_LIMITS_SQL);
    return { items: rows.map(toGroupDepthLimitResource) };
  }

  /**
   * Sets the limit of `type` (null: global) to `maxDepth` unfinished actions per group.
   * Takes effect for the next insert; groups already deeper keep their actions.
   * @throws BadRequestException (400) naming `type` when it is not a valid action type.
   */
  async set(type: string | null, maxDepth: number): Promise<GroupDepthLimitResource> {
    this.checkType(type);
    const [row]: GroupDepthLimitRow[] = await this.dataSource.query(UPSERT_GROUP_DEPTH_LIMIT_SQL, [type, maxDepth]);
    return toGroupDepthLimitResource(row);
  }

  /**
   * Removes the limit of `type` (null: global).
   * @throws NotFoundException (404) when there is none.
   */
  async remove(type: string | null): Promise<void> {
    this.checkType(type);
    const [rows]: [unknown[], number] = await this.dataSource.query(DELETE_GROUP_DEPTH_LIMIT_SQL, [type]);
    if (rows.length === 0) throw new NotFoundException(`no ${type === null ? 'global' : `type "${type}"`} group depth limit is set`);
  }

  /** The action-type rule of POST /actions, /pauses and /rate-limits: a type no handler can have is refused, not stored. */
  private checkType(type: string | null): void {
    if (type !== null && !ACTION_TYPE_PATTERN.test(type)) {
      throw new BadRequestException(['type must be 1..200 characters of letters, digits, ".", "_", "-", ":"']);
    }
  }
}
