import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Pool } from 'pg';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { PG_POOL } from '../../database/pg-pool.provider';
import { StatementNaming, statementNaming, timedQuery } from '../../database/timed-query';
import { leaseTiming } from '../instance/lease-timing';
import { PAUSE_TYPE_FOR_SQL } from '../sql/pause-type.sql';

/**
 * Writes a handler's whole-type back-off (`ctx.backOff(ms, { wholeType: true })`
 * or `RetryAfterError` with `wholeType`) as a timed type pause, shared by
 * every instance (docs/flow-control.md). Called before the attempt's release
 * is recorded, so no other head of the type is claimed in between.
 */
@Injectable()
export class TypeBackOff {
  private readonly logger = new Logger(TypeBackOff.name);
  private readonly naming: StatementNaming;
  private readonly timeoutMs: number;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SETTINGS) settings: QueueSettings,
  ) {
    this.naming = statementNaming(settings.DATABASE_POOLER);
    this.timeoutMs = leaseTiming(settings.LEASE_MS).statementTimeoutMs;
  }

  /**
   * Pauses `type` for `ms` milliseconds. Never rejects: when the database
   * cannot be reached the failure is logged, and the action's own group still
   * waits (its release carries the delay).
   * @param actionId the action whose handler asked, named in the pause's reason.
   */
  async pause(type: string, ms: number, actionId: string): Promise<void> {
    try {
      await this.pool.query(timedQuery(PAUSE_TYPE_FOR_SQL, [type, ms, `back-off of action ${actionId}`], this.timeoutMs, this.naming));
    } catch (error) {
      this.logger.warn(`Could not pause type ${type} for ${ms} ms (back-off of action ${actionId}): ${(error as Error).message}`);
    }
  }
}
