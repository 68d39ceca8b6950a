import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { QUEUE_DATA_SOURCE } from '../../database/queue-data-source.token';
import { fitToBudget } from '../../http/response-budget';
import { AttemptResource, BoundedActionResource, toActionResource, toAttemptResource, toBoundedActionResource } from '../action.resource';
import { BOTH_GROUP_NAMES } from '../dto/group-key.validator';
import { ListActionsFilter } from '../enqueue-input.interface';
import { internedLockId } from '../group-key.lookup';
import { ActionRow } from '../sql/action-columns.sql';
import {
  ACTION_TRACE_BYTES_SQL,
  ContentBytesRow,
  LIST_ACTIONS_SQL,
  LIST_GROUP_ACTIONS_SQL,
  pageSizesSql,
  SELECT_LISTED_ACTIONS_SQL,
  SELECT_TRACE_SQL,
  SELECT_TRACE_WITHOUT_CONTENT_SQL,
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
   * @param options `content: false` leaves out its payload, result and last error and each
   *   attempt's error and stack (`contentOmitted`, with `contentBytes`): a read that always fits.
   * @throws NotFoundException (404); PayloadTooLargeException (413) when, with its content,
   *   it and its trace are over MAX_RESPONSE_BYTES (the message names `content=false`).
   */
  async get(id: string, options: { content?: boolean } = {}): Promise<BoundedActionResource & { trace: AttemptResource[] }> {
    const [{ bytes: traceBytes }]: { bytes: string }[] = await this.dataSource.query(ACTION_TRACE_BYTES_SQL, [id]);
    if (options.content === false) {
      const action = await this.bounded.readWithin(id, -1);
      if (!action) throw new NotFoundException(`action ${id} not found`);
      const trace = await this.dataSource.query(SELECT_TRACE_WITHOUT_CONTENT_SQL, [id]);
      return { ...action, contentBytes: { ...action.contentBytes!, trace: Number(traceBytes) }, trace: trace.map(toAttemptResource) };
    }
    const row = await this.bounded.read(id, Number(traceBytes));
    if (!row) throw new NotFoundException(`action ${id} not found`);
    const trace = await this.dataSource.query(SELECT_TRACE_SQL, [id]);
    return { ...toActionResource(row), contentOmitted: false, trace: trace.map(toAttemptResource) };
  }

  /**
   * A page in id order, bounded twice: at most `limit` rows, and their
   * payloads, results and errors within MAX_RESPONSE_BYTES (sizes measured by
   * PostgreSQL first, so no oversize row is fetched), fitted by fitToBudget: a
   * row that would fit an empty page but not this one ends it (fewer than
   * `limit` items and a `nextCursor`); a row that can never fit is listed
   * without its content (`contentOmitted`, with `contentBytes`). So a page
   * always answers.
   * @throws BadRequestException (400) for `lockId` with `groupKey`, or an invalid `groupKey`.
   */
  async list(query: ListActionsFilter): Promise<{ items: BoundedActionResource[]; nextCursor: string | null }> {
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
    const sizes: (ContentBytesRow & { id: string })[] = await this.dataSource.query(pageSizesSql(sql), params);
    const bytes = sizes.map((s) => ({ payload: Number(s.payload_bytes), result: Number(s.result_bytes), lastError: Number(s.last_error_bytes) }));
    const fit = fitToBudget(
      bytes.map((b) => b.payload + b.result + b.lastError),
      this.settings.MAX_RESPONSE_BYTES,
    );
    const ids = sizes.slice(0, fit.count).map((s) => s.id);
    const omittedIds = ids.filter((_, i) => fit.omitted[i]);
    const rows: (ActionRow & { content_omitted: boolean })[] = ids.length > 0 ? await this.dataSource.query(SELECT_LISTED_ACTIONS_SQL, [ids, omittedIds]) : [];
    const bytesById = new Map(sizes.map((s, i) => [s.id, bytes[i]]));
    const cut = fit.count < sizes.length;
    return {
      items: rows.map((row) => toBoundedActionResource(row, bytesById.get(row.id)!)),
      nextCursor: cut || sizes.length === limit ? ids[ids.length - 1] : null,
    };
  }
}
