import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { PG_POOL } from '../../database/pg-pool.provider';
import { StatementNaming, statementNaming, timedQuery } from '../../database/timed-query';
import { ActionHandlersRegistry } from '../../handlers/action-handlers.registry';
import { LeaseTiming } from '../instance/lease-timing';
import { LEASE_TIMING } from '../instance/lease-timing.token';
import { monotonicNow } from '../instance/monotonic-clock';
import { CLAIM_CHUNKS_SQL, CLAIM_CHUNKS_TRACED_SQL, NEXT_DUE_SQL } from '../sql/claim-actions.sql';
import { fillLateTraceparents } from '../sql/leased-action.sql';
import { QueueSpans } from '../../tracing/queue-spans';
import { tracingEnabled } from '../../tracing/tracing-enabled';
import { LeasedActionRow } from '../sql/leased-action.sql';
import { groupIntoUnits, LeasedUnit } from '../instance/leased-units';
import { WORKER_ID } from '../instance/worker-id.token';
import { WorkerMetrics } from '../instance/worker-metrics';

/** What one claim leased, as the units each slot runs (see groupIntoUnits), and when it was sent (monotonic ms). */
export interface ClaimedUnits {
  units: LeasedUnit[];
  sentAt: number;
}

/** Actions leased by one claim, and when it was sent (monotonic ms): their leases last at least LEASE_MS from then. */
export interface Claimed {
  rows: LeasedActionRow[];
  sentAt: number;
}

/**
 * Runs the claim statements (CLAIM_CHUNKS_SQL: `aq_claim_chunks` of src/database/functions/aq_claim_chunks.sql around
 * `aq_claim_actions` of src/database/functions/aq_claim_actions.sql; the reasoning of its floor is in
 * 023-claim-frontier.up.sql, first 006) for the types this worker has
 * handlers for, each one short transaction with a client-side timeout.
 */
@Injectable()
export class ClaimerService {
  private readonly naming: StatementNaming;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SETTINGS) settings: QueueSettings,
    @Inject(WORKER_ID) private readonly workerId: string,
    private readonly registry: ActionHandlersRegistry,
    private readonly metrics: WorkerMetrics,
    @Inject(LEASE_TIMING) private readonly timing: LeaseTiming,
    private readonly spans: QueueSpans,
  ) {
    this.naming = statementNaming(settings.DATABASE_POOLER);
  }

  /**
   * Claims up to `limit` claimable heads (never a quarantined one), each
   * with the members of its ordered chunk when its type runs in chunks.
   * @throws the driver's error when the database is unreachable or too slow.
   */
  async claim(limit: number): Promise<ClaimedUnits> {
    const { rows, sentAt } = await this.run(limit, false);
    return { units: groupIntoUnits(rows, (type) => this.registry.isChunked(type)), sentAt };
  }

  /** Claims at most one due suspect (quarantined) head, for the SuspectRunner. */
  claimQuarantined(): Promise<Claimed> {
    return this.run(1, true);
  }

  /** Milliseconds until the next scheduled head of these types is due (database clock), or null when none is. */
  async msUntilNextDue(): Promise<number | null> {
    return (await this.nextDue()).waitMs;
  }

  /**
   * Milliseconds (database clock) until the next scheduled head of these types
   * is due, suspects included (`waitMs`), and until the next suspect head is
   * (`suspectWaitMs`); each null when none is scheduled.
   */
  async nextDue(): Promise<{ waitMs: number | null; suspectWaitMs: number | null }> {
    const { rows } = await this.query<{ wait_ms: number | null; suspect_wait_ms: number | null }>(NEXT_DUE_SQL, [this.registry.types()]);
    return { waitMs: rows[0]?.wait_ms ?? null, suspectWaitMs: rows[0]?.suspect_wait_ms ?? null };
  }

  private async run(limit: number, quarantined: boolean): Promise<Claimed> {
    const sentAt = monotonicNow();
    const chunking = this.registry.chunking();
    const traced = tracingEnabled();
    const startTime = Date.now();
    const { rows } = await this.query<LeasedActionRow>(traced ? CLAIM_CHUNKS_TRACED_SQL : CLAIM_CHUNKS_SQL, [
      this.workerId,
      this.registry.types(),
      this.registry.caps(),
      limit,
      this.timing.leaseMs,
      quarantined,
      chunking.types,
      chunking.max,
    ]);
    this.metrics.claimSeconds((monotonicNow() - sentAt) / 1000);
    if (traced) {
      await fillLateTraceparents(rows, (text, values) => this.pool.query(text, values));
      this.spans.recordClaim(rows, startTime);
    }
    return { rows, sentAt };
  }

  private query<T extends object>(statement: { name: string; text: string }, values: unknown[]) {
    return this.pool.query<T>(timedQuery(statement, values, this.timing.statementTimeoutMs, this.naming));
  }
}
