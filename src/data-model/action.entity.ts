import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ActionStatus, FailurePolicy } from '../vocabulary';

/**
 * One queued action (table `actions`). 64-bit columns are strings so no id
 * loses precision. `isHead` and `holdsGroup` are kept by database triggers
 * (src/database/sql/004-group-order.up.sql); the application never writes them.
 *
 * The migration is the source of truth: the indexes and CHECK constraints
 * below only mirror it (names and columns) so that TypeORM's schema diff
 * (`migration:generate --check`) finds nothing to change.
 */
@Entity({ name: 'actions' })
@Index('actions_claimable_idx', ['runAt', 'id'], { where: "is_head AND status = 'pending' AND NOT quarantined" })
@Index('actions_tenant_claimable_idx', ['tenant', 'runAt', 'id'], { where: "is_head AND status = 'pending' AND NOT quarantined" })
@Index('actions_quarantined_idx', ['runAt', 'id'], { where: "is_head AND status = 'pending' AND quarantined" })
@Index('actions_group_holding_idx', ['lockId', 'id'], { where: 'holds_group AND lock_id IS NOT NULL' })
@Index('actions_running_idx', ['id'], { where: "status = 'running'" })
@Index('actions_pending_idx', ['id'], { where: "status = 'pending'" })
@Index('actions_failed_idx', ['id'], { where: "status = 'failed'" })
@Index('actions_blocked_idx', ['lockId', 'id'], { where: "status = 'failed' AND holds_group" })
@Index('actions_cancelled_idx', ['id'], { where: "status = 'cancelled'" })
@Index('actions_group_finished_idx', ['lockId', 'id'], { where: 'lock_id IS NOT NULL AND NOT holds_group' })
@Index('actions_finished_at_idx', ['finishedAt'], { where: 'finished_at IS NOT NULL AND NOT holds_group' })
@Index('actions_idempotency_key_uq', ['idempotencyKey'], { unique: true, where: 'idempotency_key IS NOT NULL' })
@Index('actions_retry_of_uq', ['retryOf'], { unique: true, where: 'retry_of IS NOT NULL' })
@Check('actions_status_valid', "status IN ('pending', 'running', 'done', 'failed', 'cancelled')")
@Check('actions_on_failure_valid', "on_failure IN ('block', 'skip')")
@Check('actions_type_length', 'char_length(type) BETWEEN 1 AND 200')
@Check('actions_payload_is_object', "jsonb_typeof(payload) = 'object'")
@Check('actions_max_attempts_positive', 'max_attempts >= 1')
@Check('actions_attempts_in_range', 'attempts >= 0 AND charged_attempts BETWEEN 0 AND attempts')
@Check('actions_idempotency_key_length', 'char_length(idempotency_key) BETWEEN 1 AND 200')
@Check('actions_run_at_in_range', "run_at >= '1970-01-01' AND run_at < '10000-01-01'")
@Check(
  'actions_traceparent_format',
  "traceparent ~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$' AND substr(traceparent, 4, 32) <> repeat('0', 32) AND substr(traceparent, 37, 16) <> repeat('0', 16)",
)
@Check('actions_tenant_name', "tenant ~ '^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$'")
@Check('actions_lease_iff_running', "(status = 'running') = (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL)")
export class Action {
  /** From `actions_id_seq`, assigned by a trigger under the group lock (no column default). */
  @PrimaryColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'lock_id', type: 'bigint', nullable: true })
  lockId: string | null;

  /** The string group key, interned into lockId by the insert trigger (017-group-keys.up.sql); never changes. */
  @Column({ name: 'group_key', type: 'text', collation: 'C', nullable: true })
  groupKey: string | null;

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

  /** Attempts that count toward maxAttempts (releases and unproven lost leases do not). */
  @Column({ name: 'charged_attempts', type: 'integer', default: 0 })
  chargedAttempts: number;

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

  /** Set by a cancel of a running action: the holder aborts, the action ends `cancelled`. */
  @Column({ name: 'cancel_requested_at', type: 'timestamptz', nullable: true })
  cancelRequestedAt: Date | null;

  /** Poison detection: a suspect, lost with its instance twice in a row, once singled out, or three times (047-singled-losses.up.sql). */
  @Column({ type: 'boolean', default: false })
  quarantined: boolean;

  /** Losses with its instance in a row, not charged yet (charged if it is lost again as a suspect). */
  @Column({ name: 'uncharged_losses', type: 'integer', default: 0 })
  unchargedLosses: number;

  /** Of those losses, the ones that singled it out: lost with at most one other action of its instance (047-singled-losses.up.sql). */
  @Column({ name: 'singled_losses', type: 'integer', default: 0 })
  singledLosses: number;

  /** While it runs in an ordered chunk: the id of the chunk's first action (042-ordered-chunks.up.sql). */
  @Column({ name: 'chunk_of', type: 'bigint', nullable: true })
  chunkOf: string | null;

  /** The enqueuer's W3C trace context (`traceparent`, version 00), the parent of each attempt's span (049-trace-context.up.sql). */
  @Column({ type: 'text', nullable: true })
  traceparent: string | null;

  /** The tenant it belongs to, 'default' when none was given; never changes; a group holds one tenant's work at a time (052-tenants.up.sql). */
  @Column({ type: 'text', default: 'default' })
  tenant: string;
}
