import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The lock row of one group (table `action_group_locks`, migration 039): every
 * writer of the group locks it, nothing updates it, so a lookup stays one
 * index entry however long an MVCC horizon is held. The group's head is in
 * ActionGroupHead; the view `action_groups` shows both as before. Mirrors the
 * migration for TypeORM's schema diff.
 */
@Entity({ name: 'action_group_locks' })
export class ActionGroupLock {
  @PrimaryColumn({ name: 'lock_id', type: 'bigint', primaryKeyConstraintName: 'action_group_locks_pkey' })
  lockId: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
