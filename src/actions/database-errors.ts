import { ConflictException, PayloadTooLargeException } from '@nestjs/common';

/** The driver's error of a failed statement: TypeORM wraps it as `driverError`, pg throws it bare. */
function driverErrorOf(error: unknown): { code?: string; constraint?: string; message?: string } | undefined {
  const wrapped = (error as { driverError?: { code?: string; constraint?: string; message?: string } } | undefined)?.driverError;
  return wrapped ?? (error as { code?: string; constraint?: string; message?: string } | undefined);
}

/** The SQLSTATE of a failed statement (e.g. `40P01`), or undefined for an error that is not the database's. */
export function sqlStateOf(error: unknown): string | undefined {
  return (error as { driverError?: { code?: string } } | undefined)?.driverError?.code ?? (error as { code?: string } | undefined)?.code;
}

/** Whether `error` is a unique violation (23505) of the named constraint or index. */
export function violates(error: unknown, constraint: string): boolean {
  const e = driverErrorOf(error);
  return e?.code === '23505' && e?.constraint === constraint;
}

/**
 * The 413 for an insert the database refused by its payload limit
 * (aq.max_payload_bytes, migration 014: SQLSTATE 54000), or null for any other error.
 * @param hint what the client or operator can do, after the database's message.
 */
export function payloadLimitOfDatabase(
  error: unknown,
  hint = "the database's limit is below MAX_PAYLOAD_BYTES: raise aq.max_payload_bytes (docs/operations.md)",
): PayloadTooLargeException | null {
  const e = driverErrorOf(error);
  if (e?.code !== '54000' || !e.message?.includes('aq.max_payload_bytes')) return null;
  return new PayloadTooLargeException(`${e.message}; ${hint}`);
}

/** The SQLSTATE of the insert trigger's refusal of an action whose group holds another tenant's work (052-tenants.up.sql). */
export const GROUP_TENANT_SQLSTATE = 'AQT01';

/**
 * The 409 for an insert the database refused because the action's group holds
 * work of another tenant (SQLSTATE AQT01, aq_actions_before_insert), or null for
 * any other error. The message is the database's, which names the group and
 * both tenants, followed by `outcome`.
 * @param error what TypeORM or pg threw.
 * @param outcome what was written: by default `nothing was enqueued` (one insert, or an all-or-nothing batch).
 */
export function groupTenantConflictOfDatabase(error: unknown, outcome = 'nothing was enqueued'): ConflictException | null {
  const e = driverErrorOf(error);
  if (e?.code !== GROUP_TENANT_SQLSTATE) return null;
  return new ConflictException(`${e.message}; ${outcome}`);
}
