import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { AttemptOutcome } from './action-status';

/** One finished execution attempt of an action (table `action_attempts`, append-only). */
@Entity({ name: 'action_attempts' })
export class ActionAttempt {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'action_id', type: 'bigint' })
  actionId: string;

  @Column({ name: 'lock_id', type: 'bigint', nullable: true })
  lockId: string | null;

  @Column({ type: 'integer' })
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
}
