import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The lock row of one group (table `action_groups`); `headId` mirrors the group's head. */
@Entity({ name: 'action_groups' })
export class ActionGroup {
  @PrimaryColumn({ name: 'lock_id', type: 'bigint' })
  lockId: string;

  @Column({ name: 'head_id', type: 'bigint', nullable: true })
  headId: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
