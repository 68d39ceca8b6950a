import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One head record of a group (table `action_group_heads`, migration 039),
 * append only: a change of head inserts version + 1 (every eighth deletes
 * the eight before it), so the current one is the first entry of a backward
 * index scan. `headId` names the group's head while that action holds the
 * group (0: none); after the group emptied it names the head that released
 * it, and `emptied` is set. Written only by the queue's triggers
 * (aq_set_group_head, aq_promote_groups). Mirrors the migration for
 * TypeORM's schema diff.
 */
@Entity({ name: 'action_group_heads' })
export class ActionGroupHead {
  @PrimaryColumn({ name: 'lock_id', type: 'bigint', primaryKeyConstraintName: 'action_group_heads_pkey' })
  lockId: string;

  @PrimaryColumn({ name: 'version', type: 'bigint', primaryKeyConstraintName: 'action_group_heads_pkey' })
  version: string;

  @Column({ name: 'head_id', type: 'bigint' })
  headId: string;

  @Column({ name: 'emptied', type: 'boolean', default: false })
  emptied: boolean;
}
