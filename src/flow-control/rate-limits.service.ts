import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QUEUE_DATA_SOURCE } from '../database/queue-data-source.token';
import { ACTION_TYPE_PATTERN } from '../vocabulary';
import { SetRateLimitDto } from './dto/set-rate-limit.dto';
import { RateLimitResource } from './rate-limit.resource';
import { CLEAR_RATE_LIMIT_SQL, HAS_OVERRIDE_SQL, LIST_RATE_LIMITS_SQL, SET_RATE_LIMIT_SQL } from './sql/rate-limits.sql';

/** A row of the rate-limit statements (src/flow-control/sql/rate-limits.sql.ts). */
interface RateLimitRow {
  type: string;
  per_second: number;
  burst: number;
  default_per_second: number | null;
  default_burst: number | null;
  override_per_second: number | null;
  override_burst: number | null;
  updated_at: Date;
}

/**
 * Rate limits per action type, changed at runtime: the override an operator
 * sets here wins over the handler's `rateLimit` default; clearing it falls
 * back to that default. Every instance's next claim obeys the change.
 */
@Injectable()
export class RateLimitsService {
  constructor(@Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource) {}

  /**
   * Sets the override of `type`.
   * @throws BadRequestException naming `type` when it is not a valid action type.
   */
  async set(type: string, input: SetRateLimitDto): Promise<RateLimitResource> {
    checkType(type);
    const rows: RateLimitRow[] = await this.dataSource.query(SET_RATE_LIMIT_SQL, [type, input.perSecond, input.burst ?? 1]);
    return toRateLimitResource(rows[0]);
  }

  /**
   * Clears the override of `type`.
   * @returns the handler's default now in force, or null when none is.
   * @throws NotFoundException when `type` has no override.
   */
  async clear(type: string): Promise<RateLimitResource | null> {
    checkType(type);
    const [{ has }]: { has: boolean }[] = await this.dataSource.query(HAS_OVERRIDE_SQL, [type]);
    if (!has) throw new NotFoundException(`Type ${type} has no rate limit override`);
    const rows: RateLimitRow[] = await this.dataSource.query(CLEAR_RATE_LIMIT_SQL, [type]);
    return rows[0] ? toRateLimitResource(rows[0]) : null;
  }

  /** Every limit in force. */
  async list(): Promise<{ items: RateLimitResource[] }> {
    const rows: RateLimitRow[] = await this.dataSource.query(LIST_RATE_LIMITS_SQL);
    return { items: rows.map(toRateLimitResource) };
  }
}

function checkType(type: string): void {
  if (!ACTION_TYPE_PATTERN.test(type)) throw new BadRequestException(['type must be 1..200 characters of letters, digits, ".", "_", "-", ":"']);
}

function toRateLimitResource(row: RateLimitRow): RateLimitResource {
  return {
    type: row.type,
    perSecond: row.per_second,
    burst: row.burst,
    source: row.override_per_second !== null ? 'override' : 'handler',
    handlerDefault: row.default_per_second === null ? null : { perSecond: row.default_per_second, burst: row.default_burst ?? 1 },
    updatedAt: row.updated_at.toISOString(),
  };
}
