/**
 * A tenant's name: 1..128 characters of ASCII letters, digits and `.` `_` `:`
 * `@` `-`, starting with a letter or a digit. The same rule as the database's
 * constraints actions_tenant_name and action_tenant_settings_tenant_name
 * (src/database/sql/052-tenants.up.sql): safe as a URL path segment, a metric
 * label value and in a log line, never `.` or `..`.
 */
export const TENANT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;

/** The tenant of an action enqueued without one (the column's default). */
export const DEFAULT_TENANT = 'default';

/** The rule of {@link TENANT_PATTERN} in words, for a 400's message after the field name. */
export const TENANT_RULE = 'must be 1..128 characters of letters, digits, ".", "_", ":", "@", "-", starting with a letter or a digit';

/**
 * Why `value` is not a valid tenant name, as the end of a sentence that starts
 * with the field name; null when it is one.
 * @param value what the caller gave (any JSON value).
 */
export function tenantProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string';
  return TENANT_PATTERN.test(value) ? null : TENANT_RULE;
}
