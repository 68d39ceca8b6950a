import { BadRequestException, Inject, Injectable, Logger } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool.provider';
import { SELECT_GROUP_KEY_LOCK_ID_SQL } from '../actions/sql/manage-actions.sql';
import { groupDepthLimitOfDatabase } from '../actions/group-depth-limit.error';
import { CommandedAction, publishCancel, publishRetry } from '../actions/commands/command-events';
import { QueueEventSink } from '../events/queue-event-sink';
import { BulkOperationResource, BulkOperationRow, toBulkOperationResource } from './bulk-operation.resource';
import { BulkFilterDto } from './dto/bulk-operation.dto';
import {
  ADD_APPLIED_SQL,
  CANCEL_CHUNK_SQL,
  COUNT_MATCHING_SQL,
  FINISH_BULK_OPERATION_SQL,
  INSERT_BULK_OPERATION_SQL,
  LIST_BULK_OPERATIONS_SQL,
  NEXT_CHUNK_SQL,
  RETRY_BLOCKED_CHUNK_SQL,
  RETRY_SKIPPED_CHUNK_SQL,
  SELECT_BULK_OPERATION_SQL,
} from './sql/bulk-operations.sql';

/**
 * Actions changed per transaction: each chunk locks at most this many rows
 * and their groups for one short transaction, so workers and producers wait
 * milliseconds, never for the whole operation.
 */
export const BULK_CHUNK_SIZE = 500;

/** Audit rows per page of GET /bulk-operations. */
export const BULK_OPERATIONS_PAGE = 100;

/** The statuses each operation accepts (also checked by the command line before it connects). */
export const BULK_ACCEPTED_STATUSES: Record<'retry' | 'cancel', string[]> = { retry: ['failed'], cancel: ['pending', 'failed', 'running'] };

/**
 * Retries or cancels every action matching a filter, with a dry run, in
 * chunks of {@link BULK_CHUNK_SIZE} taken in id order (one transaction each),
 * through the same statements as the single-action routes; every operation,
 * dry runs included, is recorded in action_bulk_operations. Each chunk's
 * changes are reported to the lifecycle events once it committed, as the
 * single-action commands report theirs.
 */
@Injectable()
export class BulkOperationsService {
  private readonly logger = new Logger(BulkOperationsService.name);

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly events: QueueEventSink,
  ) {}

  /**
   * Runs one operation and answers its audit row.
   * @param actor who asked (bulk-actor.ts).
   * @throws BadRequestException (400) for an empty filter or a status the
   *   operation does not take; HttpException (429) when a retry copy meets a
   *   group's maximum depth (the chunks before it stay applied; the audit row says so).
   */
  async run(operation: 'retry' | 'cancel', filter: BulkFilterDto, dryRun: boolean, actor: string): Promise<BulkOperationResource> {
    const params = await this.filterParams(operation, filter);
    const [{ n, max_id: lastMatched }]: { n: string; max_id: string | null }[] = (await this.pool.query(COUNT_MATCHING_SQL, params)).rows;
    const [{ id }]: { id: string }[] = (await this.pool.query(INSERT_BULK_OPERATION_SQL, [operation, dryRun, JSON.stringify(filter), actor, n])).rows;
    if (!dryRun) {
      try {
        if (lastMatched !== null) await this.applyInChunks(operation, params, id, lastMatched);
        await this.pool.query(FINISH_BULK_OPERATION_SQL, [id, null]);
      } catch (error) {
        await this.pool.query(FINISH_BULK_OPERATION_SQL, [id, (error as Error).message]).catch(() => undefined);
        this.logger.warn(`bulk ${operation} ${id} stopped: ${(error as Error).message}`);
        // The chunks before the refused one stay applied: say how many, never "nothing was enqueued".
        const applied = await this.get(id).then(
          (row) => row.applied,
          () => null,
        );
        const outcome =
          applied === null
            ? `bulk operation ${id} stopped; earlier chunks may have been applied (GET /bulk-operations)`
            : `bulk operation ${id} stopped after applying ${applied} of ${n} matched actions (earlier chunks stay applied; the refused chunk wrote nothing)`;
        throw groupDepthLimitOfDatabase(error, outcome) ?? error;
      }
    }
    return this.get(id);
  }

  /** Audit rows, newest first, {@link BULK_OPERATIONS_PAGE} at most, before id `before` when given. */
  async list(before?: string): Promise<{ items: BulkOperationResource[] }> {
    const rows: BulkOperationRow[] = (await this.pool.query(LIST_BULK_OPERATIONS_SQL, [before ?? null, BULK_OPERATIONS_PAGE])).rows;
    return { items: rows.map(toBulkOperationResource) };
  }

  private async get(id: string): Promise<BulkOperationResource> {
    const [row]: BulkOperationRow[] = (await this.pool.query(SELECT_BULK_OPERATION_SQL, [id])).rows;
    return toBulkOperationResource(row);
  }

  /**
   * Applies the operation chunk by chunk to the matching actions up to id
   * `lastMatched` (the largest matched at the start): what is enqueued while it
   * runs has a larger id and is left alone, so `applied` never counts it.
   */
  private async applyInChunks(operation: 'retry' | 'cancel', params: unknown[], auditId: string, lastMatched: string): Promise<void> {
    let after = '0';
    for (;;) {
      const ids: string[] = (await this.pool.query(NEXT_CHUNK_SQL, [...params, after, BULK_CHUNK_SIZE, lastMatched])).rows.map((r: { id: string }) => r.id);
      if (ids.length === 0) return;
      after = ids[ids.length - 1];
      const client = await this.pool.connect();
      try {
        await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
        let changed = 0;
        let report: () => void;
        if (operation === 'cancel') {
          const { rows } = await client.query<CommandedAction & { status: string; previous_status: string }>(CANCEL_CHUNK_SQL, [ids]);
          changed = rows.length;
          report = () => rows.forEach((row) => publishCancel(this.events, row, row.status === 'cancelled', row.previous_status));
        } else {
          const inPlace = (await client.query<CommandedAction>(RETRY_BLOCKED_CHUNK_SQL, [ids])).rows;
          const copies = (await client.query<CommandedAction & { retry_of: string }>(RETRY_SKIPPED_CHUNK_SQL, [ids])).rows;
          changed = inPlace.length + copies.length;
          report = () => {
            inPlace.forEach((row) => publishRetry(this.events, row, row.id));
            copies.forEach((copy) => publishRetry(this.events, { ...copy, id: copy.retry_of }, copy.id));
          };
        }
        await client.query(ADD_APPLIED_SQL, [auditId, changed]);
        await client.query('COMMIT');
        report();
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    }
  }

  /** The parameters of the filter statements (see MATCHES in sql/bulk-operations.sql.ts). */
  private async filterParams(operation: 'retry' | 'cancel', filter: BulkFilterDto): Promise<unknown[]> {
    // A JSON null is an absent field (the validators let it through as optional).
    const f = Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined && v !== null)) as BulkFilterDto;
    const given = Object.values(f);
    if (given.length === 0)
      throw new BadRequestException(['filter must name at least one of type, lockId, groupKey, status, errorContains, createdAfter, createdBefore']);
    if (f.lockId !== undefined && f.groupKey !== undefined) throw new BadRequestException(['filter: give lockId or groupKey, not both']);
    const accepted = BULK_ACCEPTED_STATUSES[operation];
    if (f.status !== undefined && !accepted.includes(f.status)) {
      throw new BadRequestException([
        `filter.status ${f.status} cannot be ${operation === 'retry' ? 'retried' : 'cancelled'}; allowed: ${accepted.join(', ')}`,
      ]);
    }
    let lockId: string | null = f.lockId !== undefined ? BigInt(f.lockId).toString() : null;
    if (f.groupKey !== undefined) {
      const { rows } = await this.pool.query<{ lock_id: string }>(SELECT_GROUP_KEY_LOCK_ID_SQL, [f.groupKey]);
      // A key never used matches nothing: no lock id can be its.
      lockId = rows[0]?.lock_id ?? null;
      if (lockId === null) return [[], null, null, null, null, null];
    }
    return [f.status !== undefined ? [f.status] : accepted, f.type ?? null, lockId, f.errorContains ?? null, f.createdAfter ?? null, f.createdBefore ?? null];
  }
}
