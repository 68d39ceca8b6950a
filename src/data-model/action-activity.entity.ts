import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Ten seconds of queue activity (table `action_activity`), kept for an hour:
 * how many actions ended, by final status, and the enqueue-to-start latency of
 * those that ran once. Written only by `aq_roll_up_activity`
 * (src/database/functions/aq_roll_up_activity.sql), read by `GET /stats/activity`.
 */
@Entity({ name: 'action_activity' })
export class ActionActivity {
  @PrimaryColumn({ name: 'bucket_start', type: 'timestamptz' })
  bucketStart: Date;

  @Column({ type: 'integer', default: 0 })
  done: number;

  @Column({ type: 'integer', default: 0 })
  failed: number;

  @Column({ type: 'integer', default: 0 })
  cancelled: number;

  /** Ended actions whose latency is known (they ran once, from their due time). */
  @Column({ name: 'latency_count', type: 'integer', default: 0 })
  latencyCount: number;

  @Column({ name: 'latency_sum_ms', type: 'double precision', default: 0 })
  latencySumMs: number;

  @Column({ name: 'latency_max_ms', type: 'double precision', default: 0 })
  latencyMaxMs: number;
}

/** The roll-up's single row (table `action_activity_rollup`): how far it has read, and its lock. */
@Entity({ name: 'action_activity_rollup' })
@Check('action_activity_rollup_single_row', 'id = 1')
export class ActionActivityRollup {
  @PrimaryColumn({ type: 'smallint' })
  id: number;

  /** Endings stamped up to this instant are counted in action_activity. */
  @Column({ name: 'rolled_up_to', type: 'timestamptz' })
  rolledUpTo: Date;
}
