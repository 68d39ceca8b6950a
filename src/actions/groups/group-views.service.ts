import { BadRequestException, Inject, Injectable, PayloadTooLargeException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { QUEUE_DATA_SOURCE } from '../../database/queue-data-source.token';
import { toAttemptResource } from '../action.resource';
import { INT64_MAX } from '../dto/int64.validator';
import { lockIdProblem } from '../dto/lock-id.validator';
import { BlockedGroupsQuery, DeepestGroupsQuery, GroupTimelineQuery } from '../dto/group-views.query';
import { BlockedGroupsPage, DeepestGroupResource, GroupTimelineResource, TimelineActionResource } from './group-views.resource';
import { ActionRow } from '../sql/action-columns.sql';
import { BLOCKED_GROUPS_SQL, DEEPEST_GROUPS_SQL, GROUP_TIMELINE_SQL, TimelineRow, TRACE_BYTES_SQL, TRACES_SQL } from '../sql/group-views.sql';

/** Largest signed 64-bit integer: "before" when the caller gives none. */
const INT64_MAX_TEXT = INT64_MAX.toString();

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/**
 * Reads of groups for operators and the dashboard: blocked groups with their
 * failing head, the deepest backlogs, and a group's timeline (actions with
 * every attempt). Each read walks an index of the live queue or of one group,
 * so its time does not grow with the finished history.
 */
@Injectable()
export class GroupViewsService {
  constructor(
    @Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(SETTINGS) private readonly settings: QueueSettings,
  ) {}

  /**
   * Blocked groups (head failed under `block`) in lock id order.
   * @param query `limit` 1..200 (default 50), `after` the last lock id of the previous page.
   */
  async blocked(query: BlockedGroupsQuery): Promise<BlockedGroupsPage> {
    const limit = query.limit ?? 50;
    const rows: {
      lock_id: string;
      group_key: string | null;
      id: string;
      type: string;
      attempts: number;
      max_attempts: number;
      last_error: string | null;
      created_at: Date;
      finished_at: Date | null;
      waiting: number;
    }[] = await this.dataSource.query(BLOCKED_GROUPS_SQL, [query.after ?? null, limit]);
    return {
      items: rows.map((r) => ({
        lockId: r.lock_id,
        groupKey: r.group_key,
        head: {
          id: r.id,
          type: r.type,
          attempts: r.attempts,
          maxAttempts: r.max_attempts,
          lastError: r.last_error,
          createdAt: r.created_at.toISOString(),
          failedAt: iso(r.finished_at),
        },
        waiting: r.waiting,
      })),
      nextCursor: rows.length === limit ? rows[rows.length - 1].lock_id : null,
    };
  }

  /**
   * The groups with the most actions holding them, deepest first.
   * @param query `limit` 1..100 (default 20).
   */
  async deepest(query: DeepestGroupsQuery): Promise<{ items: DeepestGroupResource[] }> {
    const rows: {
      lock_id: string;
      group_key: string | null;
      depth: number;
      head_id: string | null;
      head_type: string;
      head_status: ActionRow['status'];
      head_attempts: number;
      head_run_at: Date;
      head_last_error: string | null;
    }[] = await this.dataSource.query(DEEPEST_GROUPS_SQL, [query.limit ?? 20]);
    return {
      items: rows.map((r) => ({
        lockId: r.lock_id,
        groupKey: r.group_key,
        depth: r.depth,
        head: r.head_id
          ? {
              id: r.head_id,
              type: r.head_type,
              status: r.head_status,
              attempts: r.head_attempts,
              runAt: r.head_run_at.toISOString(),
              lastError: r.head_last_error,
            }
          : null,
      })),
    };
  }

  /**
   * A group's most recent actions (before `query.before`), in id order, each
   * with its ended attempts and, while it runs, its current attempt.
   * @throws BadRequestException naming `lockId` when it is not a signed 64-bit integer.
   */
  async timeline(lockId: string, query: GroupTimelineQuery): Promise<GroupTimelineResource> {
    const problem = lockIdProblem(lockId);
    if (problem) throw new BadRequestException([`lockId ${problem}`]);
    const canonical = BigInt(lockId).toString();
    const limit = query.limit ?? 50;
    const rows: TimelineRow[] = await this.dataSource.query(GROUP_TIMELINE_SQL, [canonical, query.before ?? INT64_MAX_TEXT, limit]);
    const fetched = rows.length;
    rows.splice(await this.rowsThatFit(rows)); // newest first: the page keeps the newest that fit
    rows.reverse(); // newest first from the index walk; execution order is id order
    const traces = rows.length > 0 ? await this.dataSource.query(TRACES_SQL, [rows.map((r) => r.id)]) : [];
    const byAction = new Map<string, TimelineActionResource['trace']>();
    for (const t of traces) {
      const list = byAction.get(t.action_id) ?? [];
      list.push(toAttemptResource(t));
      byAction.set(t.action_id, list);
    }
    const actions: TimelineActionResource[] = rows.map((r) => ({
      id: r.id,
      type: r.type,
      status: r.status,
      attempts: r.attempts,
      maxAttempts: r.max_attempts,
      onFailure: r.on_failure,
      runAt: r.run_at.toISOString(),
      createdAt: r.created_at.toISOString(),
      startedAt: iso(r.started_at),
      finishedAt: iso(r.finished_at),
      lastError: r.last_error,
      trace: byAction.get(r.id) ?? [],
      current:
        r.status === 'running' && r.lease_owner && r.attempt_started_at && r.lease_expires_at
          ? { attempt: r.attempts, workerId: r.lease_owner, startedAt: r.attempt_started_at.toISOString(), leaseExpiresAt: r.lease_expires_at.toISOString() }
          : null,
    }));
    return { lockId: canonical, actions, nextBefore: rows.length < fetched || rows.length === limit ? rows[0].id : null };
  }

  /**
   * How many of `rows` (newest first) fit MAX_RESPONSE_BYTES with their last
   * errors and traces (a trace grows with every retry, without limit), measured
   * by PostgreSQL before any trace is fetched.
   * @throws PayloadTooLargeException (413) when the newest alone does not fit, naming it.
   */
  private async rowsThatFit(rows: TimelineRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const sizes: { action_id: string; bytes: string }[] = await this.dataSource.query(TRACE_BYTES_SQL, [rows.map((r) => r.id)]);
    const traceBytes = new Map(sizes.map((s) => [s.action_id, Number(s.bytes)]));
    const budget = this.settings.MAX_RESPONSE_BYTES;
    let total = 0;
    for (let i = 0; i < rows.length; i++) {
      const bytes = (traceBytes.get(rows[i].id) ?? 0) + Buffer.byteLength(rows[i].last_error ?? '');
      total += bytes;
      if (total <= budget) continue;
      if (i > 0) return i;
      throw new PayloadTooLargeException(
        `action ${rows[i].id} holds ${bytes} bytes of errors and trace, over the ${budget}-byte limit of one response (MAX_RESPONSE_BYTES); ` +
          `read it by SQL; list past it with before=${rows[i].id}`,
      );
    }
    return rows.length;
  }
}
