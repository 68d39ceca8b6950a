import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool.provider';
import { timedQuery } from '../database/timed-query';

/** Timeout of the writability check (ms), as the database ping's. */
const WRITABLE_CHECK_TIMEOUT_MS = 2_000;

const READ_ONLY_SQL = {
  name: 'aq_health_read_only',
  text: `SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on' AS read_only`,
};

/**
 * Readiness of the database for writes: down while PostgreSQL refuses them (a
 * standby during a failover, `default_transaction_read_only`), when enqueues
 * answer 503. Checked on a pooled connection: one that reports read-only is
 * discarded rather than returned to the pool, because a session keeps the
 * read-only default it started with after the database allows writes again.
 */
@Injectable()
export class DatabaseWritableHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    @Inject(PG_POOL) private readonly pool: Pool,
  ) {}

  /** @param key the key of the result, e.g. `writable`. */
  async isWritable<Key extends string>(key: Key): Promise<HealthIndicatorResult<Key>> {
    const check = this.indicators.check(key);
    let client;
    try {
      client = await this.pool.connect();
    } catch (error) {
      return check.down({ message: (error as Error).message });
    }
    let readOnly = false;
    try {
      const { rows } = await client.query<{ read_only: boolean }>(timedQuery(READ_ONLY_SQL, [], WRITABLE_CHECK_TIMEOUT_MS, 'unnamed'));
      readOnly = rows[0].read_only;
      client.release(readOnly ? new Error('read-only session') : undefined);
      return readOnly ? check.down({ message: 'the database refuses writes (read-only)' }) : check.up();
    } catch (error) {
      client.release(error as Error);
      return check.down({ message: (error as Error).message });
    }
  }
}
