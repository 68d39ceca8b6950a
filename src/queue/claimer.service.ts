import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool.provider';
import { CLAIM_ACTIONS_SQL, ClaimedActionRow } from './sql/claim-actions.sql';

/**
 * Runs the claim statement ({@link CLAIM_ACTIONS_SQL}): one short transaction
 * that selects claimable group heads and leases them to this worker.
 */
@Injectable()
export class ClaimerService {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /**
   * Claims up to `limit` actions.
   * @param workerId lease owner written to the rows.
   * @param types action types this worker can run.
   * @param limit free slots, >= 1.
   * @param leaseMs lease length (ms), counted from the database clock.
   * @returns the claimed rows, each now `running` with `attempts` incremented.
   * @throws the driver's error when the database is unreachable.
   */
  async claim(workerId: string, types: string[], limit: number, leaseMs: number): Promise<ClaimedActionRow[]> {
    const { rows } = await this.pool.query<ClaimedActionRow>({
      ...CLAIM_ACTIONS_SQL,
      values: [workerId, types, limit, leaseMs],
    });
    return rows;
  }
}
