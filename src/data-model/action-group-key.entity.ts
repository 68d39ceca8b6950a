import { Check, Column, Entity, PrimaryColumn, Unique } from 'typeorm';

/**
 * One interned string group key (table `action_group_keys`): the lock id the
 * database gave it on first use, from the reserved range of
 * src/database/sql/017-group-keys.up.sql. Written only by the insert trigger
 * (aq_intern_group_key); kept for good, so a key names one group forever.
 * Mirrors the migration for TypeORM's schema diff.
 */
@Entity({ name: 'action_group_keys' })
@Unique('action_group_keys_lock_id_uq', ['lockId'])
@Check('action_group_keys_group_key_length', 'octet_length(group_key) BETWEEN 1 AND 255')
@Check('action_group_keys_lock_id_reserved', 'lock_id <= -9223090561878065153')
export class ActionGroupKey {
  @PrimaryColumn({ name: 'group_key', type: 'text', collation: 'C' })
  groupKey: string;

  /** From `action_group_keys_lock_id_seq`, drawn by the trigger (no column default). */
  @Column({ name: 'lock_id', type: 'bigint' })
  lockId: string;
}
