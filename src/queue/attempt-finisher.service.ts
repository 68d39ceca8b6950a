import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool.provider';
import { AttemptToFinish } from './attempt-outcome';
import { FINISH_ATTEMPTS_SQL } from './sql/finish-attempts.sql';

/** Most attempts written by one statement. */
const MAX_BATCH = 256;
/** Pause between tries of a failed write (ms), doubled up to the cap. */
const RETRY_BASE_MS = 100;
const RETRY_CAP_MS = 2_000;

interface Waiting {
  item: AttemptToFinish;
  /** Give up writing after this time (ms since epoch): the lease is gone by then. */
  deadline: number;
  resolve: (recorded: boolean) => void;
}

/**
 * Records ended attempts. Attempts that end while a write is in flight are
 * grouped into the next statement, so under load one commit ends many
 * attempts (and promotes their groups' next heads). A write that fails (the
 * database restarting, a deadlock with a producer) is retried with backoff
 * until the attempt's lease would have expired; after that the reaper owns the
 * action and the outcome is dropped.
 */
@Injectable()
export class AttemptFinisher {
  private readonly logger = new Logger(AttemptFinisher.name);
  private queue: Waiting[] = [];
  private flushing: Promise<void> | null = null;

  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /**
   * Queues an attempt's end for writing.
   * @param workerId the lease owner.
   * @param item the attempt and its end.
   * @param deadline ms since epoch after which the write is abandoned.
   * @returns true when recorded; false when fenced (lease lost) or abandoned.
   */
  finish(workerId: string, item: AttemptToFinish, deadline: number): Promise<boolean> {
    return new Promise((resolve) => {
      this.queue.push({ item, deadline, resolve });
      if (!this.flushing) this.flushing = this.flush(workerId).finally(() => (this.flushing = null));
    });
  }

  private async flush(workerId: string): Promise<void> {
    let delay = RETRY_BASE_MS;
    while (this.queue.length > 0) {
      const now = Date.now();
      const expired = this.queue.filter((w) => w.deadline <= now);
      for (const w of expired) {
        this.logger.warn(`Gave up recording attempt ${w.item.attempt} of action ${w.item.actionId}: lease expired while the database was unreachable`);
        w.resolve(false);
      }
      this.queue = this.queue.filter((w) => w.deadline > now);
      const batch = this.queue.splice(0, MAX_BATCH);
      if (batch.length === 0) break;
      try {
        const recorded = await this.write(workerId, batch.map((w) => w.item));
        for (const w of batch) w.resolve(recorded.has(`${w.item.actionId}:${w.item.attempt}`));
        delay = RETRY_BASE_MS;
      } catch (error) {
        this.logger.warn(`Recording ${batch.length} attempt(s) failed, retrying in ${delay} ms: ${(error as Error).message}`);
        this.queue.unshift(...batch);
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, RETRY_CAP_MS);
      }
    }
  }

  private async write(workerId: string, items: AttemptToFinish[]): Promise<Set<string>> {
    const ids: string[] = [], attempts: number[] = [], statuses: string[] = [], results: (string | null)[] = [];
    const errors: (string | null)[] = [], delays: number[] = [], outcomes: string[] = [];
    for (const { actionId, attempt, end } of items) {
      ids.push(actionId);
      attempts.push(attempt);
      switch (end.kind) {
        case 'done':
          statuses.push('done'); results.push(JSON.stringify(end.result ?? null)); errors.push(null); delays.push(0); outcomes.push('done');
          break;
        case 'retry':
          statuses.push('pending'); results.push(null); errors.push(end.error); delays.push(end.delayMs); outcomes.push('error');
          break;
        case 'failed':
          statuses.push('failed'); results.push(null); errors.push(end.error); delays.push(0); outcomes.push('error');
          break;
        case 'released':
          statuses.push('pending'); results.push(null); errors.push(end.error); delays.push(0); outcomes.push('released');
          break;
      }
    }
    const { rows } = await this.pool.query<{ action_id: string; attempt: number }>({
      ...FINISH_ATTEMPTS_SQL,
      values: [workerId, ids, attempts, statuses, results, errors, delays, outcomes],
    });
    return new Set(rows.map((r) => `${r.action_id}:${r.attempt}`));
  }
}
