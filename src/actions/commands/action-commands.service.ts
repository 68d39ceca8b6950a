import { groupDepthLimitOfDatabase } from '../group-depth-limit.error';
import { ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { QueueEventSink } from '../../events/queue-event-sink';
import { QUEUE_DATA_SOURCE } from '../../database/queue-data-source.token';
import { stringifyJson } from '../../http/json-text';
import { ActionCommandResource, toActionCommandResource, toActionResource } from '../action.resource';
import { groupTenantConflictOfDatabase, payloadLimitOfDatabase, violates } from '../database-errors';
import { ActionRow } from '../sql/action-columns.sql';
import { INSERT_ACTIONS_SQL } from '../sql/enqueue-actions.sql';
import { traceparentToStore } from '../../tracing/traceparent';
import { publishCancel, publishRetry } from './command-events';
import { CANCEL_ACTION_SQL, LOCK_FAILED_SKIP_SQL, NOTIFY_READY_SQL, RETRY_IN_PLACE_SQL, SELECT_ACTION_SQL } from '../sql/manage-actions.sql';

/** A row a command (cancel, retry) returned: see COMMAND_RESULT_COLUMNS in sql/manage-actions.sql.ts. */
type CommandRow = ActionRow & { content_omitted: boolean };

/**
 * The rows of an `UPDATE ... RETURNING` run through `DataSource.query`: TypeORM
 * answers UPDATE and DELETE with `[rows, rowCount]`, every other statement with `rows`.
 */
function updatedRows<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}

/**
 * The operators' commands on one action: cancel and retry (manage-actions.sql.ts).
 * Each reports what it changed to the lifecycle events once committed (command-events.ts).
 */
@Injectable()
export class ActionCommands {
  constructor(
    @Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(SETTINGS) private readonly settings: QueueSettings,
    private readonly events: QueueEventSink,
  ) {}

  /**
   * Cancels a pending or failed action, or requests the cancellation of a running one.
   * @returns the action; over MAX_RESPONSE_BYTES, without its payload, result and error (`contentOmitted`).
   * @throws NotFoundException (404), ConflictException (409) when done or cancelled already.
   */
  async cancel(id: string): Promise<ActionCommandResource> {
    const [row] = updatedRows<CommandRow & { previous_status: string }>(await this.dataSource.query(CANCEL_ACTION_SQL, [id, this.settings.MAX_RESPONSE_BYTES]));
    if (row) {
      // One statement outside a transaction: committed once it answered.
      publishCancel(this.events, row, row.status === 'cancelled', row.previous_status);
      return toActionCommandResource(row);
    }
    throw await this.stateConflict(id, 'cancel', 'pending, running or failed');
  }

  /**
   * Retries a failed action: in place under `block`, as a copy at its group's tail under `skip`.
   * @returns the action (the copy under `skip`); over MAX_RESPONSE_BYTES, without its payload, result and error (`contentOmitted`).
   * @throws NotFoundException (404), ConflictException (409) when not failed or already retried,
   *   PayloadTooLargeException (413) when a `skip` action's payload is over the database's payload limit.
   */
  async retry(id: string): Promise<ActionCommandResource> {
    const [inPlace] = updatedRows<CommandRow>(await this.dataSource.query(RETRY_IN_PLACE_SQL, [id, this.settings.MAX_RESPONSE_BYTES]));
    if (inPlace) {
      // Committed (one statement outside a transaction): reported before the wake-up, so it comes before the next attempt's events.
      publishRetry(this.events, inPlace, inPlace.id);
      // The head is claimable again: wake the workers now rather than at their next poll.
      await this.dataSource.query(NOTIFY_READY_SQL);
      return toActionCommandResource(inPlace);
    }
    let retried: { original: ActionRow; copyId: string } | undefined;
    const resource = await this.dataSource.transaction('READ COMMITTED', async (m): Promise<ActionCommandResource> => {
      const [failed]: (ActionRow & { retried_as: string | null })[] = await m.query(LOCK_FAILED_SKIP_SQL, [id]);
      // On the transaction's own connection: asking the pool for a second one
      // while holding this one can exhaust it under concurrent retries.
      if (!failed) throw await this.stateConflict(id, 'retry', 'failed', m);
      if (failed.retried_as) throw new ConflictException(`action ${id} was already retried as action ${failed.retried_as}`);
      // Whatever its depth (a SQL producer may store any): JSON.stringify would overflow the stack.
      const payloadText = stringifyJson(failed.payload) ?? '{}';
      try {
        const [copy]: ActionRow[] = await m.query(INSERT_ACTIONS_SQL, [
          [failed.lock_id],
          [failed.type],
          [payloadText],
          [null],
          [failed.max_attempts],
          [failed.on_failure],
          [null],
          [failed.id],
          // Both names of the group: the trigger accepts them when they agree.
          [failed.group_key],
          // The retrying caller's trace (its active span), not the failed one's: a new cause.
          traceparentToStore(),
          // Its own tenant: the group still holds its work (or none).
          [failed.tenant],
        ]);
        retried = { original: failed, copyId: copy.id };
        // The copy has no result or error yet: its payload is all there is to bound.
        const contentOmitted = Buffer.byteLength(payloadText) > this.settings.MAX_RESPONSE_BYTES;
        return { ...toActionResource(contentOmitted ? { ...copy, payload: {} } : copy), contentOmitted };
      } catch (error) {
        // A concurrent retry committed its copy after our snapshot: the unique
        // index on retry_of is what makes "retried once" hold under races.
        if (violates(error, 'actions_retry_of_uq')) throw new ConflictException(`action ${id} was already retried`);
        // A payload stored before the limit (or past it by an operator) cannot be enqueued again: 413 naming the limit.
        throw (
          payloadLimitOfDatabase(error, `action ${id} was stored past the limit and cannot be enqueued again as it is (docs/operations.md)`) ??
          groupDepthLimitOfDatabase(error) ??
          groupTenantConflictOfDatabase(error) ??
          error
        );
      }
    });
    // transaction() resolved: the copy is committed.
    if (retried) publishRetry(this.events, retried.original, retried.copyId);
    return resource;
  }

  /**
   * The error for an action that is not in a state `verb` accepts: 404 when it
   * does not exist, else 409 naming its status and the allowed ones.
   * @param on where to read the action: inside a transaction, its EntityManager
   *   (never a second pool connection while one is held); else the DataSource.
   */
  private async stateConflict(id: string, verb: string, allowed: string, on: Pick<EntityManager, 'query'> = this.dataSource): Promise<Error> {
    const [row]: ActionRow[] = await on.query(SELECT_ACTION_SQL, [id]);
    if (!row) return new NotFoundException(`action ${id} not found`);
    return new ConflictException(
      `cannot ${verb} action ${id}: it is ${row.status}${row.status === 'failed' ? ` (policy ${row.on_failure})` : ''}; allowed from ${allowed}`,
    );
  }
}
