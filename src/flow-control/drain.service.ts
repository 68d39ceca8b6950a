import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QUEUE_DATA_SOURCE } from '../database/queue-data-source.token';
import { DrainResource } from './pause.resource';
import { DRAIN_STATE_SQL, PAUSE_QUEUE_SQL, RESUME_QUEUE_SQL } from './sql/pauses.sql';

/** The reason a drain writes on its queue pause. */
export const DRAIN_REASON = 'drain';

/**
 * Drains the whole queue: pauses it (no instance claims anything more; what
 * runs finishes) and reports when nothing runs any more. The drain is a queue
 * pause like any other: `DELETE /queue/drain`, `DELETE /pauses/:id` and
 * `aq_resume_queue()` all end it.
 */
@Injectable()
export class DrainService {
  constructor(@Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource) {}

  /** Starts a drain (a no-op when the queue is paused already) and returns its state. */
  async start(): Promise<DrainResource> {
    await this.dataSource.query(PAUSE_QUEUE_SQL, [DRAIN_REASON]);
    return this.state();
  }

  /** Ends the drain (resumes the queue); a no-op when none is on. */
  async stop(): Promise<void> {
    await this.dataSource.query(RESUME_QUEUE_SQL);
  }

  /** Whether the queue is paused, and how many actions still run. */
  async state(): Promise<DrainResource> {
    const [row]: { paused_since: Date | null; reason: string | null; running: number }[] = await this.dataSource.query(DRAIN_STATE_SQL);
    const draining = row.paused_since !== null;
    return { draining, running: row.running, drained: draining && row.running === 0, since: row.paused_since?.toISOString() ?? null, reason: row.reason };
  }
}
