import { Inject, Injectable, PayloadTooLargeException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { QUEUE_DATA_SOURCE } from '../../database/queue-data-source.token';
import { BoundedActionResource, toBoundedActionResource } from '../action.resource';
import { ActionRow } from '../sql/action-columns.sql';
import { ACTION_RESOURCE_BYTES_SQL, ContentBytesRow, SELECT_ACTION_WITHIN_SQL, SELECT_BOUNDED_ACTION_SQL } from '../sql/manage-actions.sql';

/** The query flag that reads an action without its content (named in every 413 of a one-action read). */
export const WITHOUT_CONTENT_FLAG = 'content=false';

/**
 * Reads one action within the response budget (MAX_RESPONSE_BYTES): sizes are
 * measured by PostgreSQL, so an action over the budget is never fetched. Used
 * by the action reads and the group state (its head).
 */
@Injectable()
export class BoundedActionReader {
  constructor(
    @Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(SETTINGS) private readonly settings: QueueSettings,
  ) {}

  /**
   * One action, or null when it does not exist.
   * @param traceBytes bytes of its trace sent with it (ACTION_TRACE_BYTES_SQL), 0 when the trace is not sent.
   * @throws PayloadTooLargeException (413) when its payload, result and error (and trace) are over MAX_RESPONSE_BYTES.
   */
  async read(id: string, traceBytes = 0): Promise<ActionRow | null> {
    const [row]: ActionRow[] = await this.dataSource.query(SELECT_BOUNDED_ACTION_SQL, [id, this.settings.MAX_RESPONSE_BYTES - traceBytes]);
    if (row) return row;
    const [size]: { bytes: string }[] = await this.dataSource.query(ACTION_RESOURCE_BYTES_SQL, [id]);
    if (!size) return null;
    throw this.tooLargeToSend(id, Number(size.bytes) + traceBytes, '', traceBytes > 0);
  }

  /**
   * One action that always fits: its content is left out (`contentOmitted`,
   * with `contentBytes`) when payload, result and error are over `budget`.
   * @param budget bytes of content it may carry: MAX_RESPONSE_BYTES by default; -1 always leaves the content out.
   * @returns the action, or null when it does not exist.
   */
  async readWithin(id: string, budget = this.settings.MAX_RESPONSE_BYTES): Promise<BoundedActionResource | null> {
    const [row]: (ActionRow & ContentBytesRow & { content_omitted: boolean })[] = await this.dataSource.query(SELECT_ACTION_WITHIN_SQL, [id, budget]);
    if (!row) return null;
    return toBoundedActionResource(row, {
      payload: Number(row.payload_bytes),
      result: Number(row.result_bytes),
      lastError: Number(row.last_error_bytes),
    });
  }

  /**
   * The 413 for an action too large for one response, naming it and the limit.
   * @param bytes its measured size; `hint` ends the message (e.g. how to list past it).
   */
  tooLargeToSend(id: string, bytes: number, hint: string, withTrace = false): PayloadTooLargeException {
    return new PayloadTooLargeException(
      `action ${id} holds ${bytes} bytes of payload, result${withTrace ? ', error and trace' : ' and error'}, over the ${this.settings.MAX_RESPONSE_BYTES}-byte limit of one response ` +
        `(MAX_RESPONSE_BYTES); read it without its content with GET /actions/${id}?${WITHOUT_CONTENT_FLAG}, or by SQL${hint}`,
    );
  }
}
