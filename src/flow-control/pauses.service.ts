import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QUEUE_DATA_SOURCE } from '../database/queue-data-source.token';
import { CreatePauseDto } from './dto/create-pause.dto';
import { ListPausesQuery } from './dto/list-pauses.query';
import { PauseResource } from './pause.resource';
import { PauseScope } from './pause-scope';
import { LIST_PAUSES_SQL, PAUSE_SQL, PAUSE_TENANT_SQL, RESUME_PAUSE_SQL, RESUME_TARGET_SQL, RESUME_TENANT_SQL } from './sql/pauses.sql';

/** A row of the pause statements (src/flow-control/sql/pauses.sql.ts). */
interface PauseRow {
  id: string;
  scope: PauseScope;
  type: string | null;
  lock_id: string | null;
  group_key: string | null;
  tenant: string | null;
  reason: string | null;
  created_at: Date;
  until: Date | null;
}

/** Default page of `GET /pauses`. */
const DEFAULT_PAGE = 50;

/**
 * Pauses and resumes the queue, an action type or a group, as data every
 * instance reads in its claim (the table of src/database/sql/030-flow-control.up.sql,
 * written by src/database/functions/aq_pause.sql and aq_resume.sql, the same
 * functions psql users call). A pause takes effect at each instance's
 * next claim; a resume wakes every instance at once.
 */
@Injectable()
export class PausesService {
  constructor(@Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource) {}

  /**
   * Pauses one target; pausing a paused target again returns its one pause
   * (the longer of the two stays, a new reason replaces the old).
   * @throws BadRequestException naming the field when the target does not match the scope.
   */
  async pause(body: CreatePauseDto): Promise<PauseResource> {
    // A JSON null is an absent field (the validators let it through as optional): never a null lock id for the SQL.
    const input = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null)) as CreatePauseDto;
    const problem = targetProblem(input);
    if (problem) throw new BadRequestException([problem]);
    const reason = input.reason ?? null;
    if (input.scope === 'tenant') {
      const [row]: PauseRow[] = await this.dataSource.query(PAUSE_TENANT_SQL, [input.tenant, reason, input.forMs ?? null]);
      return toPauseResource(row);
    }
    const rows: PauseRow[] = await this.dataSource.query(PAUSE_SQL, [
      input.scope,
      input.type ?? null,
      input.lockId ?? null,
      reason,
      input.forMs ?? null,
      input.groupKey ?? null,
    ]);
    return toPauseResource(rows[0]);
  }

  /** Active pauses in id order, one page. */
  async list(query: ListPausesQuery): Promise<{ items: PauseResource[]; nextCursor: string | null }> {
    const limit = query.limit ?? DEFAULT_PAGE;
    const rows: PauseRow[] = await this.dataSource.query(LIST_PAUSES_SQL, [query.after ?? '0', limit, query.scope ?? null]);
    return { items: rows.map(toPauseResource), nextCursor: rows.length === limit ? rows[rows.length - 1].id : null };
  }

  /**
   * Resumes pause `id`.
   * @throws NotFoundException when no active pause has this id.
   */
  async resume(id: string): Promise<void> {
    const rows: { id: string; active: boolean }[] = await this.dataSource.query(RESUME_PAUSE_SQL, [id]);
    if (!rows[0]?.active) throw new NotFoundException(`No active pause with id ${id}`);
  }

  /**
   * Resumes a target named as {@link pause} names it (the command line's
   * `resume`; `reason` and `forMs` are ignored); resuming a target that is
   * not paused changes nothing.
   * @returns whether it was paused.
   * @throws BadRequestException naming the field when the target does not match the scope.
   */
  async resumeTarget(target: CreatePauseDto): Promise<boolean> {
    const input = Object.fromEntries(Object.entries(target).filter(([, v]) => v !== null)) as CreatePauseDto;
    const problem = targetProblem(input);
    if (problem) throw new BadRequestException([problem]);
    if (input.scope === 'tenant') {
      const [row]: { resumed: boolean }[] = await this.dataSource.query(RESUME_TENANT_SQL, [input.tenant]);
      return row.resumed;
    }
    const rows: { resumed: boolean }[] = await this.dataSource.query(RESUME_TARGET_SQL, [
      input.scope,
      input.type ?? null,
      input.lockId ?? null,
      input.groupKey ?? null,
    ]);
    return rows[0].resumed;
  }
}

/** Why the target fields do not fit the scope (a sentence naming the field), or null. */
function targetProblem(input: CreatePauseDto): string | null {
  const { scope, type, lockId, groupKey, tenant } = input;
  if (scope !== 'type' && type !== undefined) return `type is only for scope type, not ${scope}`;
  if (scope !== 'tenant' && tenant !== undefined) return `tenant is only for scope tenant, not ${scope}`;
  if (scope === 'tenant' && tenant === undefined) return 'tenant is required for scope tenant';
  if (scope !== 'group' && (lockId !== undefined || groupKey !== undefined))
    return `${lockId !== undefined ? 'lockId' : 'groupKey'} is only for scope group, not ${scope}`;
  if (scope === 'type' && type === undefined) return 'type is required for scope type';
  if (scope === 'group' && lockId === undefined && groupKey === undefined) return 'lockId or groupKey is required for scope group';
  if (lockId !== undefined && groupKey !== undefined) return 'give lockId or groupKey, not both';
  return null;
}

function toPauseResource(row: PauseRow): PauseResource {
  return {
    id: row.id,
    scope: row.scope,
    type: row.type,
    lockId: row.lock_id,
    groupKey: row.group_key,
    tenant: row.tenant,
    reason: row.reason,
    createdAt: row.created_at.toISOString(),
    until: row.until ? row.until.toISOString() : null,
  };
}
