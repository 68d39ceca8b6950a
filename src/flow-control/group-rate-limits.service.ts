import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { groupKeyProblem } from '../actions/dto/group-key.validator';
import { enqueueLockIdProblem, lockIdProblem } from '../actions/dto/lock-id.validator';
import { QUEUE_DATA_SOURCE } from '../database/queue-data-source.token';
import { SetRateLimitDto } from './dto/set-rate-limit.dto';
import { GroupRateLimitResource } from './group-rate-limit.resource';
import { LIST_GROUP_RATE_LIMITS_SQL, REMOVE_GROUP_RATE_LIMIT_SQL, SET_GROUP_RATE_LIMIT_SQL } from './sql/group-rate-limits.sql';

/** A row of the group rate-limit statements (src/flow-control/sql/group-rate-limits.sql.ts). */
interface GroupRateLimitRow {
  lock_id: string;
  group_key: string | null;
  per_second: number;
  burst: number;
  updated_at: Date;
}

/** How a route names a group: by lock id or by string group key. */
export type GroupName = { lockId: string } | { groupKey: string };

/** Default and largest page of `GET /rate-limits/groups`; `GET /rate-limits` shows the first default page. */
export const GROUP_RATE_LIMITS_PAGE = { default: 100, max: 500 } as const;

/**
 * Rate limits per group, changed at runtime: a group (a tenant, a customer)
 * starts at most `perSecond` actions a second, `burst` in quick succession
 * after a quiet spell, on all instances together. Every instance's next claim
 * obeys a change; a head held back by the old limit is judged again at once
 * (src/database/sql/031-rate-limits.up.sql, "Rate limits per group").
 */
@Injectable()
export class GroupRateLimitsService {
  constructor(@Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource) {}

  /**
   * Sets the limit of a group (a string key not used yet is interned, so a tenant can be limited before its first action).
   * @throws BadRequestException naming `lockId` or `groupKey` when it is invalid.
   */
  async set(group: GroupName, input: SetRateLimitDto): Promise<GroupRateLimitResource> {
    // Setting names a group to act on: the range reserved for string keys is refused, as POST /actions and /pauses do.
    const [lockId, groupKey] = checkGroup(group, enqueueLockIdProblem);
    const rows: GroupRateLimitRow[] = await this.dataSource.query(SET_GROUP_RATE_LIMIT_SQL, [lockId, input.perSecond, input.burst ?? 1, groupKey]);
    return toGroupRateLimitResource(rows[0]);
  }

  /**
   * Removes the limit of a group: its held-back head, if any, may start at once.
   * @throws BadRequestException naming `lockId` or `groupKey` when it is invalid.
   * @throws NotFoundException when the group has no limit.
   */
  async remove(group: GroupName): Promise<void> {
    const [lockId, groupKey] = checkGroup(group);
    const rows: { removed: boolean }[] = await this.dataSource.query(REMOVE_GROUP_RATE_LIMIT_SQL, [lockId, groupKey]);
    if (rows.length === 0) throw new NotFoundException(`${groupKey === null ? `Group ${lockId}` : `groupKey ${JSON.stringify(groupKey)}`} has no rate limit`);
  }

  /**
   * Group limits in lock-id order, one page.
   * @param after the last lock id of the previous page (its `nextCursor`), or undefined for the first page.
   * @param limit page size, 1..{@link GROUP_RATE_LIMITS_PAGE}.max.
   */
  async list(
    after: string | undefined,
    limit: number = GROUP_RATE_LIMITS_PAGE.default,
  ): Promise<{ items: GroupRateLimitResource[]; nextCursor: string | null }> {
    const rows: GroupRateLimitRow[] = await this.dataSource.query(LIST_GROUP_RATE_LIMITS_SQL, [after ?? null, limit]);
    return { items: rows.map(toGroupRateLimitResource), nextCursor: rows.length === limit ? rows[rows.length - 1].lock_id : null };
  }
}

/**
 * The canonical lock id (or null) and the group key (or null) of `group`; 400 naming the field when invalid.
 * @param problemOf the lock-id rule (default: any signed 64-bit integer).
 */
function checkGroup(group: GroupName, problemOf: (value: unknown) => string | null = lockIdProblem): [string | null, string | null] {
  if ('groupKey' in group) {
    const problem = groupKeyProblem(group.groupKey);
    if (problem) throw new BadRequestException([`groupKey ${problem}`]);
    return [null, group.groupKey];
  }
  const problem = problemOf(group.lockId);
  if (problem) throw new BadRequestException([`lockId ${problem}`]);
  return [BigInt(group.lockId).toString(), null];
}

function toGroupRateLimitResource(row: GroupRateLimitRow): GroupRateLimitResource {
  return {
    lockId: row.lock_id,
    groupKey: row.group_key,
    perSecond: row.per_second,
    burst: row.burst,
    updatedAt: row.updated_at.toISOString(),
  };
}
