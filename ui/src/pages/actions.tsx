import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { apiGet, query } from '../api';
import type { ActionsPage, ActionStatus } from '../api-types';
import { ErrorNotice } from '../components/error-notice';
import { GroupName } from '../components/group-name';
import { StatusBadge } from '../components/status-badge';
import { formatInstant, formatRuns } from '../format';
import { usePoll } from '../use-poll';

const REFRESH_MS = 5_000;
const STATUSES: ActionStatus[] = ['pending', 'running', 'done', 'failed', 'cancelled'];

interface Filters {
  status: string;
  type: string;
  lockId: string;
  groupKey: string;
}

/**
 * The filter form. The Status list applies at once, as every other list and
 * button of the dashboard; the text fields on Enter or Filter (applying them
 * keystroke by keystroke would query a half-typed type or lock id).
 */
function FilterForm({ initial, onApply }: { initial: Filters; onApply: (f: Filters) => void }) {
  const [draft, setDraft] = useState(initial);
  const set = (name: keyof Filters) => (e: Event) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value });
  const apply = (f: Filters) => onApply({ status: f.status, type: f.type.trim(), lockId: f.lockId.trim(), groupKey: f.groupKey });
  return (
    <form
      class="filters"
      onSubmit={(event) => {
        event.preventDefault();
        apply(draft);
      }}
    >
      <label>
        Status
        <select
          name="status"
          value={draft.status}
          onChange={(e) => {
            const next = { ...draft, status: (e.target as HTMLSelectElement).value };
            setDraft(next);
            apply(next);
          }}
        >
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
          <table class="striped cards" data-testid="actions-table">
            <thead>
              <tr>
                <th scope="col">id</th>
                <th scope="col">group</th>
                <th scope="col">type</th>
                <th scope="col">status</th>
                <th scope="col">runs</th>
                <th scope="col">created</th>
                <th scope="col">finished</th>
              </tr>
            </thead>
            <tbody>
              {items.map((a) => (
                <tr key={a.id} data-action-id={a.id}>
                  <td data-label="id">
                    <Link href={`/actions/${a.id}`}>#{a.id}</Link>
                  </td>
                  <td data-label="group">
                    <GroupName lockId={a.lockId} groupKey={a.groupKey} />
                  </td>
                  <td data-label="type">{a.type}</td>
                  <td data-label="status">
                    <StatusBadge value={a.status} />
                  </td>
                  <td data-label="runs" data-testid="action-runs">
                    {formatRuns(a)}
                  </td>
                  <td data-label="created" class="nowrap">
                    {formatInstant(a.createdAt)}
                  </td>
                  <td data-label="finished" class="nowrap">
                    {formatInstant(a.finishedAt)}
                  </td>
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
