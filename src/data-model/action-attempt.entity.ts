import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Action } from './action.entity';
import type { AttemptOutcome } from '../vocabulary';

/**
 * One finished execution attempt of an action (table `action_attempts`,
 * append-only). Keyed by (action, attempt): one row per fencing token.
 */
@Entity({ name: 'action_attempts' })
@Check('action_attempts_outcome_valid', "outcome IN ('done', 'error', 'timeout', 'cancelled', 'lease_expired', 'released', 'backed_off')")
export class ActionAttempt {
  /** Insertion order (identity, not indexed). */
  @Column({ type: 'bigint', generated: 'identity', generatedIdentity: 'ALWAYS' })
  id: string;

  @PrimaryColumn({ name: 'action_id', type: 'bigint' })
  actionId: string;

  /** The trace goes with its action (ON DELETE CASCADE; retention relies on it). */
  @ManyToOne(() => Action, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'action_id', foreignKeyConstraintName: 'action_attempts_action_fk' })
  action?: Action;

  @Column({ name: 'lock_id', type: 'bigint', nullable: true })
  lockId: string | null;

  @PrimaryColumn({ type: 'integer' })
  attempt: number;

  @Column({ name: 'worker_id', type: 'text' })
  workerId: string;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt: Date;

  @Column({ name: 'finished_at', type: 'timestamptz' })
  finishedAt: Date;

  @Column({ type: 'text' })
  outcome: AttemptOutcome;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** The stack of the thrown Error, bounded (see src/queue/outcome/thrown-value.ts). */
  @Column({ name: 'error_stack', type: 'text', nullable: true })
  errorStack: string | null;

  /** The id of the first action of the ordered chunk this attempt ran in; null: run alone (042-ordered-chunks.up.sql). */
  @Column({ name: 'chunk_of', type: 'bigint', nullable: true })
  chunkOf: string | null;
}
