import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { QUEUE_DATA_SOURCE } from '../../database/queue-data-source.token';
import { ActionResource, AttemptResource, toActionResource, toAttemptResource } from '../action.resource';
import { BOTH_GROUP_NAMES } from '../dto/group-key.validator';
import { ListActionsFilter } from '../enqueue-input.interface';
import { internedLockId } from '../group-key.lookup';
import { ActionRow } from '../sql/action-columns.sql';
import {
  ACTION_TRACE_BYTES_SQL,
  LIST_ACTIONS_SQL,
  LIST_GROUP_ACTIONS_SQL,
  pageSizesSql,
  SELECT_ACTIONS_BY_IDS_SQL,
  SELECT_TRACE_SQL,
} from '../sql/manage-actions.sql';
import { BoundedActionReader } from './bounded-action.reader';

/** Page size of a list without `limit`. */
const DEFAULT_PAGE_SIZE = 50;

/** Reads of actions: one with its trace, and pages in id order, each bounded by MAX_RESPONSE_BYTES. */
@Injectable()
export class ActionReads {
  constructor(
    @Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(SETTINGS) private readonly settings: QueueSettings,
    private readonly bounded: BoundedActionReader,
  ) {}

  /**
   * One action with its trace (one entry per ended attempt).
   * @throws NotFoundException (404); PayloadTooLargeException (413) when it and its trace are over MAX_RESPONSE_BYTES.
   */
  async get(id: string): Promise<ActionResource & { trace: AttemptResource[] }> {
    const [{ bytes: traceBytes }]: { bytes: string }[] = await this.dataSource.query(ACTION_TRACE_BYTES_SQL, [id]);
    const row = await this.bounded.read(id, Number(traceBytes));
    if (!row) throw new NotFoundException(`action ${id} not found`);
    const trace = await this.dataSource.query(SELECT_TRACE_SQL, [id]);
    return { ...toActionResource(row), trace: trace.map(toAttemptResource) };
  }

  /**
   * A page in id order, bounded twice: at most `limit` rows, and rows only
   * while their payloads, results and errors add up to MAX_RESPONSE_BYTES
   * (sizes measured by PostgreSQL first, so no oversize row is fetched). A
   * page cut by bytes has fewer than `limit` items and a `nextCursor`.
   * @throws BadRequestException (400) for `lockId` with `groupKey`, or an invalid `groupKey`;
   *   PayloadTooLargeException (413) when the page's first action alone is over MAX_RESPONSE_BYTES, naming it.
   */
  async list(query: ListActionsFilter): Promise<{ items: ActionResource[]; nextCursor: string | null }> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    let lockId = query.lockId;
    if (query.groupKey !== undefined) {
      if (lockId !== undefined) throw new BadRequestException([BOTH_GROUP_NAMES]);
      const interned = await internedLockId((sql, params) => this.dataSource.query(sql, params), query.groupKey);
      // A key never used names an empty group.
      if (interned === null) return { items: [], nextCursor: null };
      lockId = interned;
    }
    const [status, type, after] = [query.status ?? null, query.type ?? null, query.after ?? '0'];
    const [sql, params] =
      lockId === undefined ? [LIST_ACTIONS_SQL, [status, type, after, limit]] : [LIST_GROUP_ACTIONS_SQL, [status, lockId, type, after, limit]];
    const sizes: { id: string; bytes: string }[] = await this.dataSource.query(pageSizesSql(sql), params);
    const budget = this.settings.MAX_RESPONSE_BYTES;
    const ids: string[] = [];
    let total = 0;
    for (const { id, bytes } of sizes) {
      total += Number(bytes);
      if (total > budget) break;
      ids.push(id);
    }
    if (sizes.length > 0 && ids.length === 0) {
      throw this.bounded.tooLargeToSend(sizes[0].id, Number(sizes[0].bytes), `; list past it with after=${sizes[0].id}`);
    }
    const rows: ActionRow[] = ids.length > 0 ? await this.dataSource.query(SELECT_ACTIONS_BY_IDS_SQL, [ids]) : [];
    const cut = ids.length < sizes.length;
    return { items: rows.map(toActionResource), nextCursor: cut || sizes.length === limit ? ids[ids.length - 1] : null };
  }
}
