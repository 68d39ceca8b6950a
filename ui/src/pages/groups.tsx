import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { apiGet, query } from '../api';
import type { BlockedGroupsPage, DeepestGroupResource, GroupResource } from '../api-types';
import { ActionButtons } from '../components/action-buttons';
import { ErrorNotice } from '../components/error-notice';
import { GroupName } from '../components/group-name';
import { StatusBadge } from '../components/status-badge';
import { formatCount, formatInstant } from '../format';
import { usePoll } from '../use-poll';

const REFRESH_MS = 5_000;
const LOCK_ID = /^-?\d{1,19}$/;

/** Jump to a group by its lockId, or by its string groupKey (anything that is not an integer). */
function GroupSearch() {
  const [, navigate] = useLocation();
  const [lockId, setLockId] = useState('');
  const [error, setError] = useState<Error | undefined>(undefined);
  const valid = lockId !== '';
  return (
    <form
      class="inline-form"
      aria-label="Find a group"
      onSubmit={(event) => {
        event.preventDefault();
        setError(undefined);
        if (LOCK_ID.test(lockId.trim())) return navigate(`/groups/${lockId.trim()}`);
        // A string key: the service knows its lock id (404 when no action ever used it).
        apiGet<GroupResource>(`/groups/by-key/${encodeURIComponent(lockId)}`).then((g) => navigate(`/groups/${g.lockId}`), setError);
      }}
    >
      <label>
        Find a group by lockId or groupKey
        <input type="search" name="lockId" placeholder="e.g. 26 or tenant:42" value={lockId} onInput={(e) => setLockId((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit" disabled={!valid}>
        Open
      </button>
      <ErrorNotice error={error} />
    </form>
  );
}

/** Blocked groups, a page at a time, with the failing head's error and retry / cancel buttons. */
function BlockedGroups() {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const after = cursors[cursors.length - 1];
  const page = usePoll((signal) => apiGet<BlockedGroupsPage>(`/groups/blocked${query({ limit: 50, after })}`, signal), REFRESH_MS, [after]);
  const items = page.data?.items ?? [];
  return (
    <section aria-labelledby="blocked-title">
      <h3 id="blocked-title">Blocked groups</h3>
      <p>
        A group is blocked when its head failed under the <code>block</code> policy: retry the head to run it again, or cancel it to let the group move on.
      </p>
      <ErrorNotice error={page.error} />
      {page.data && items.length === 0 && <p data-testid="no-blocked">No group is blocked.</p>}
      {items.length > 0 && (
        <div class="overflow-auto">
          <table class="striped" data-testid="blocked-groups">
            <thead>
              <tr>
                <th scope="col">group</th>
                <th scope="col">failed head</th>
                <th scope="col">runs</th>
                <th scope="col">error</th>
                <th scope="col">failed at</th>
                <th scope="col">waiting</th>
                <th scope="col">
                  <span class="visually-hidden">actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((g) => (
                <tr key={g.lockId} data-lock-id={g.lockId}>
                  <td>
                    <GroupName lockId={g.lockId} groupKey={g.groupKey} />
                  </td>
                  <td>
                    <Link href={`/actions/${g.head.id}`}>#{g.head.id}</Link> {g.head.type}
                  </td>
                  {/* Runs in all: a manual retry grants a fresh budget, so "of maxAttempts" would mislead. */}
                  <td>{g.head.attempts}</td>
                  <td class="error-text">
                    {g.head.contentOmitted ? `(${g.head.contentBytes?.lastError} bytes: too large to show here)` : (g.head.lastError ?? '–')}
                  </td>
                  <td class="nowrap">{formatInstant(g.head.failedAt)}</td>
                  <td>{formatCount(g.waiting)}</td>
                  <td>
                    <ActionButtons id={g.head.id} status="failed" subject={`head of group ${g.lockId}`} onDone={page.reload} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="pager">
        {cursors.length > 1 && (
          <button type="button" class="secondary small" onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous page
          </button>
        )}
        {page.data?.nextCursor && (
          <button type="button" class="secondary small" onClick={() => setCursors([...cursors, page.data!.nextCursor!])}>
            Next page
          </button>
        )}
      </div>
    </section>
  );
}

/** The deepest backlogs. */
function DeepestGroups() {
  const deepest = usePoll((signal) => apiGet<{ items: DeepestGroupResource[] }>('/groups/deepest?limit=20', signal), REFRESH_MS, []);
  const items = deepest.data?.items ?? [];
  return (
    <section aria-labelledby="deepest-title">
      <h3 id="deepest-title">Deepest groups</h3>
      <ErrorNotice error={deepest.error} />
      {deepest.data && items.length === 0 && <p>No group has actions waiting.</p>}
      {items.length > 0 && (
        <div class="overflow-auto">
          <table class="striped" data-testid="deepest-groups">
            <thead>
              <tr>
                <th scope="col">group</th>
                <th scope="col">depth</th>
                <th scope="col">head</th>
                <th scope="col">head status</th>
              </tr>
            </thead>
            <tbody>
              {items.map((g) => (
                <tr key={g.lockId}>
                  <td>
                    <GroupName lockId={g.lockId} groupKey={g.groupKey} />
                  </td>
                  <td>{formatCount(g.depth)}</td>
                  <td>
                    {g.head ? (
                      <>
                        <Link href={`/actions/${g.head.id}`}>#{g.head.id}</Link> {g.head.type}
                      </>
                    ) : (
                      '–'
                    )}
                  </td>
                  <td>{g.head ? <StatusBadge value={g.head.status} /> : '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Groups: search by lockId, blocked groups (with retry / cancel), deepest backlogs. */
export function Groups() {
  return (
    <section aria-labelledby="groups-title">
      <h2 id="groups-title">Groups</h2>
      <GroupSearch />
      <BlockedGroups />
      <DeepestGroups />
    </section>
  );
}
