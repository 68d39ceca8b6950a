import { Link } from 'wouter-preact';

/**
 * A group as a link to its page: the string group key when it has one (its
 * interned lock id in the tooltip), else the lock id; `empty` when the action
 * belongs to no group.
 */
export function GroupName({ lockId, groupKey, empty = '–' }: { lockId: string | null; groupKey: string | null; empty?: string }) {
  if (lockId === null) return <>{empty}</>;
  if (groupKey === null) return <Link href={`/groups/${lockId}`}>{lockId}</Link>;
  return (
    <Link href={`/groups/${lockId}`} title={`groupKey, lock id ${lockId}`} data-group-key={groupKey}>
      <code>{groupKey}</code>
    </Link>
  );
}
