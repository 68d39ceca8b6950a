import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Pool } from 'pg';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { PG_POOL } from '../../database/pg-pool.provider';
import { StatementNaming, statementNaming, timedQuery } from '../../database/timed-query';
import { ActionHandlersRegistry } from '../../handlers/action-handlers.registry';
import { leaseTiming } from '../instance/lease-timing';
import { SET_RATE_LIMIT_DEFAULTS_SQL } from '../sql/rate-limit-defaults.sql';

/**
 * At start-up, writes the `rateLimit` option of each handler of this instance
 * as its type's default limit in the database, where every instance's claim
 * reads it (docs/flow-control.md); a handler without the option removes an
 * old default of its type. An operator's override (`PUT /rate-limits/:type`)
 * stays in force either way. The last instance to start wins when two
 * versions of a handler disagree.
 */
@Injectable()
export class RateLimitDefaults implements OnApplicationBootstrap {
  private readonly logger = new Logger(RateLimitDefaults.name);
  private readonly naming: StatementNaming;
  private readonly timeoutMs: number;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SETTINGS) settings: QueueSettings,
    private readonly registry: ActionHandlersRegistry,
  ) {
    this.naming = statementNaming(settings.DATABASE_POOLER);
    this.timeoutMs = leaseTiming(settings.LEASE_MS).statementTimeoutMs;
  }

  /** Writes the defaults; logs (never throws) when the database refuses, leaving the previous ones. */
  async onApplicationBootstrap(): Promise<void> {
    const types = this.registry.types();
    if (types.length === 0) return;
    const limits = types.map((type) => this.registry.get(type)!.options.rateLimit);
    try {
      await this.pool.query(
        timedQuery(
          SET_RATE_LIMIT_DEFAULTS_SQL,
          [types, limits.map((l) => l?.perSecond ?? null), limits.map((l) => (l ? (l.burst ?? 1) : null))],
          this.timeoutMs,
          this.naming,
        ),
      );
    } catch (error) {
      this.logger.warn(`Could not write the handlers' default rate limits: ${(error as Error).message}`);
    }
  }
}
