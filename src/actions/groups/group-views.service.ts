import { BadRequestException, Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { QUEUE_DATA_SOURCE } from '../../database/queue-data-source.token';
import { BudgetFit, fitToBudget } from '../../http/response-budget';
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
    // Errors are bounded when written, yet 200 of them may not fit a small MAX_RESPONSE_BYTES.
    const fit = fitToBudget(
      rows.map((r) => errorBytes(r.last_error)),
      this.settings.MAX_RESPONSE_BYTES,
    );
    const fetched = rows.length;
    rows.splice(fit.count);
    return {
      items: rows.map((r, i) => ({
        lockId: r.lock_id,
        groupKey: r.group_key,
        head: {
          id: r.id,
          type: r.type,
          attempts: r.attempts,
          maxAttempts: r.max_attempts,
          createdAt: r.created_at.toISOString(),
          failedAt: iso(r.finished_at),
          ...omittableError(r.last_error, fit.omitted[i]),
        },
        waiting: r.waiting,
      })),
      nextCursor: rows.length < fetched || fetched === limit ? rows[rows.length - 1].lock_id : null,
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
    // One list without a cursor: an error that cannot fit is left out rather than the group.
    const fit = fitToBudget(
      rows.map((r) => errorBytes(r.head_last_error)),
      this.settings.MAX_RESPONSE_BYTES,
      false,
    );
    return {
      items: rows.map((r, i) => ({
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
              ...omittableError(r.head_last_error, fit.omitted[i]),
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
    const fit = await this.timelineFit(rows); // newest first: the page keeps the newest that fit
    const omitted = new Map(rows.slice(0, fit.count).map((r, i) => [r.id, fit.omitted[i] ? fit.bytes[i] : null]));
    rows.splice(fit.count);
    rows.reverse(); // newest first from the index walk; execution order is id order
    const sent = rows.filter((r) => !omitted.get(r.id)).map((r) => r.id);
    const traces = sent.length > 0 ? await this.dataSource.query(TRACES_SQL, [sent]) : [];
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
      lastError: omitted.get(r.id) ? null : r.last_error,
      trace: byAction.get(r.id) ?? [],
      current:
        r.status === 'running' && r.lease_owner && r.attempt_started_at && r.lease_expires_at
          ? { attempt: r.attempts, workerId: r.lease_owner, startedAt: r.attempt_started_at.toISOString(), leaseExpiresAt: r.lease_expires_at.toISOString() }
          : null,
      ...(omitted.get(r.id) ? { contentOmitted: true, contentBytes: omitted.get(r.id)! } : { contentOmitted: false }),
    }));
    return { lockId: canonical, actions, nextBefore: rows.length < fetched || rows.length === limit ? rows[0].id : null };
  }

  /**
   * How `rows` (newest first) fit MAX_RESPONSE_BYTES with their last errors and
   * traces (a trace grows with every retry, without limit), measured by
   * PostgreSQL before any trace is fetched (fitToBudget): the page keeps the
   * newest that fit; one whose errors and trace alone are over the limit is
   * listed without them.
   * @returns the fit, and per row its bytes of last error and trace.
   */
  private async timelineFit(rows: TimelineRow[]): Promise<BudgetFit & { bytes: { lastError: number; trace: number }[] }> {
    if (rows.length === 0) return { count: 0, omitted: [], bytes: [] };
    const sizes: { action_id: string; bytes: string }[] = await this.dataSource.query(TRACE_BYTES_SQL, [rows.map((r) => r.id)]);
    const traceBytes = new Map(sizes.map((s) => [s.action_id, Number(s.bytes)]));
    const bytes = rows.map((r) => ({ lastError: errorBytes(r.last_error), trace: traceBytes.get(r.id) ?? 0 }));
    const fit = fitToBudget(
      bytes.map((b) => b.lastError + b.trace),
      this.settings.MAX_RESPONSE_BYTES,
    );
    return { ...fit, bytes };
  }
}

/** Bytes of an error as sent (UTF-8). */
function errorBytes(error: string | null): number {
  return error === null ? 0 : Buffer.byteLength(error);
}

/** A head's `lastError`, or its size when it was left out of the answer. */
function omittableError(error: string | null, omitted: boolean): { lastError: string | null; contentOmitted: boolean; contentBytes?: { lastError: number } } {
  return omitted ? { lastError: null, contentOmitted: true, contentBytes: { lastError: errorBytes(error) } } : { lastError: error, contentOmitted: false };
}
