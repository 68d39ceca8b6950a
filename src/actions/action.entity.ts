import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ActionStatus, FailurePolicy } from './action-status';

/**
 * One queued action (table `actions`). 64-bit columns are strings so no id
 * loses precision. `isHead` and `holdsGroup` are kept by database triggers
 * (see the CreateActionQueue migration); the application never writes them.
 */
@Entity({ name: 'actions' })
export class Action {
  @PrimaryColumn({ type: 'bigint', default: () => "nextval('actions_id_seq')" })
  id: string;

  @Column({ name: 'lock_id', type: 'bigint', nullable: true })
  lockId: string | null;

  @Column({ type: 'text' })
  type: string;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  payload: Record<string, unknown>;

  @Column({ type: 'text', default: 'pending' })
  status: ActionStatus;

  @Column({ name: 'is_head', type: 'boolean', default: false })
  isHead: boolean;

  @Column({ name: 'holds_group', type: 'boolean', default: true })
  holdsGroup: boolean;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'max_attempts', type: 'integer', default: 5 })
  maxAttempts: number;

  @Column({ name: 'on_failure', type: 'text', default: 'block' })
  onFailure: FailurePolicy;

  @Column({ name: 'run_at', type: 'timestamptz', default: () => 'now()' })
  runAt: Date;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;

  @Column({ type: 'jsonb', nullable: true })
  result: unknown;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'idempotency_key', type: 'text', nullable: true })
  idempotencyKey: string | null;

  @Column({ name: 'retry_of', type: 'bigint', nullable: true })
  retryOf: string | null;

  @Column({ name: 'lease_owner', type: 'text', nullable: true })
  leaseOwner: string | null;

  @Column({ name: 'lease_expires_at', type: 'timestamptz', nullable: true })
  leaseExpiresAt: Date | null;

  @Column({ name: 'attempt_started_at', type: 'timestamptz', nullable: true })
  attemptStartedAt: Date | null;
}
