import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { apiGet, query } from '../api';
import type { ActionsPage, ActionStatus } from '../api-types';
import { ErrorNotice } from '../components/error-notice';
import { GroupName } from '../components/group-name';
import { StatusBadge } from '../components/status-badge';
import { formatInstant } from '../format';
import { usePoll } from '../use-poll';

const REFRESH_MS = 5_000;
const STATUSES: ActionStatus[] = ['pending', 'running', 'done', 'failed', 'cancelled'];

interface Filters {
  status: string;
  type: string;
  lockId: string;
  groupKey: string;
}

/** The filter form; applies on submit. */
function FilterForm({ initial, onApply }: { initial: Filters; onApply: (f: Filters) => void }) {
  const [draft, setDraft] = useState(initial);
  const set = (name: keyof Filters) => (e: Event) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value });
  return (
    <form
      class="filters"
      onSubmit={(event) => {
        event.preventDefault();
        onApply({ status: draft.status, type: draft.type.trim(), lockId: draft.lockId.trim(), groupKey: draft.groupKey });
      }}
    >
      <label>
        Status
        <select name="status" value={draft.status} onChange={set('status')}>
          <option value="">any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label>
        Type
        <input name="type" placeholder="e.g. instance.create" value={draft.type} onInput={set('type')} />
      </label>
      <label>
        lockId
        <input name="lockId" inputMode="numeric" placeholder="e.g. 26" value={draft.lockId} onInput={set('lockId')} />
      </label>
      <label>
        groupKey
        <input name="groupKey" placeholder="e.g. tenant:42" value={draft.groupKey} onInput={set('groupKey')} />
      </label>
      <button type="submit">Filter</button>
    </form>
  );
}

/** Actions: the filtered list in id order, a page of 50 at a time, with the API's cursor. */
/** Goes to one action by its id. */
function IdSearch() {
  const [id, setId] = useState('');
  const [, navigate] = useLocation();
  return (
    <form
      class="filters"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        if (/^\d+$/.test(id.trim())) navigate(`/actions/${id.trim()}`);
      }}
    >
      <label>
        Action id
        <input
          type="search"
          name="actionId"
          inputMode="numeric"
          placeholder="e.g. 17"
          value={id}
          onInput={(e) => setId((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit" data-testid="action-id-search">
        Open
      </button>
    </form>
  );
}

export function Actions() {
  const [filters, setFilters] = useState<Filters>({ status: '', type: '', lockId: '', groupKey: '' });
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const after = cursors[cursors.length - 1];
  const page = usePoll(
    (signal) =>
      apiGet<ActionsPage>(
        `/actions${query({ status: filters.status, type: filters.type, lockId: filters.lockId, groupKey: filters.groupKey, limit: 50, after })}`,
        signal,
      ),
    REFRESH_MS,
    [filters, after],
  );
  const items = page.data?.items ?? [];
  return (
    <section aria-labelledby="actions-title">
      <h2 id="actions-title">Actions</h2>
      <IdSearch />
      <FilterForm
        initial={filters}
        onApply={(f) => {
          setFilters(f);
          setCursors([undefined]);
        }}
      />
      <ErrorNotice error={page.error} />
      {page.data && items.length === 0 && <p>No action matches.</p>}
      {items.length > 0 && (
        <div class="overflow-auto">
          <table class="striped" data-testid="actions-table">
            <thead>
              <tr>
                <th scope="col">id</th>
                <th scope="col">group</th>
                <th scope="col">type</th>
                <th scope="col">status</th>
                <th scope="col">budget used</th>
                <th scope="col">created</th>
                <th scope="col">finished</th>
              </tr>
            </thead>
            <tbody>
              {items.map((a) => (
                <tr key={a.id}>
                  <td>
                    <Link href={`/actions/${a.id}`}>#{a.id}</Link>
                  </td>
                  <td>
                    <GroupName lockId={a.lockId} groupKey={a.groupKey} />
                  </td>
                  <td>{a.type}</td>
                  <td>
                    <StatusBadge value={a.status} />
                  </td>
                  {/* The budget: attempts charged (a retry grants it afresh; releases are free) of maxAttempts. */}
                  <td title={`${a.attempts} run(s) in all`}>
                    {a.chargedAttempts}/{a.maxAttempts}
                  </td>
                  <td class="nowrap">{formatInstant(a.createdAt)}</td>
                  <td class="nowrap">{formatInstant(a.finishedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="pager">
        {cursors.length > 1 && (
          <button type="button" class="secondary small" onClick={() => setCursors([undefined])}>
            First page
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
