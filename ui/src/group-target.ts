/** What the API takes as a lock id (a signed 64-bit decimal); anything else in a group field is a group key. */
export const LOCK_ID = /^-?\d{1,19}$/;

/**
 * The group an operator typed, as the API names it: `{ lockId }` for a
 * decimal lock id, else `{ groupKey }` (trimmed either way).
 */
export function groupTarget(text: string): { lockId: string } | { groupKey: string } {
  const t = text.trim();
  return LOCK_ID.test(t) ? { lockId: t } : { groupKey: t };
}
