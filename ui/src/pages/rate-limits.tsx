import { useState } from 'preact/hooks';
import { apiDelete, apiGet, apiPutJson } from '../api';
import type { GroupRateLimitResource, RateLimitResource } from '../api-types';
import { ErrorNotice } from '../components/error-notice';
import { GroupName } from '../components/group-name';
import { formatInstant } from '../format';
import { groupTarget } from '../group-target';
import { useAction } from '../use-action';
import { usePoll } from '../use-poll';

const REFRESH_MS = 5_000;

/** `GET /rate-limits`: the types' limits and the first 100 groups' (more through GET /rate-limits/groups). */
interface RateLimitsPage {
  items: RateLimitResource[];
  groups: GroupRateLimitResource[];
  groupsNextCursor: string | null;
}

type LimitScope = 'type' | 'group';

/** The route of one limit: `/rate-limits/:type`, `/rate-limits/groups/:lockId` or `/rate-limits/groups/by-key/:groupKey`. */
function limitPath(scope: LimitScope, target: string): string {
  if (scope === 'type') return `/rate-limits/${encodeURIComponent(target.trim())}`;
  const group = groupTarget(target);
  return 'lockId' in group ? `/rate-limits/groups/${group.lockId}` : `/rate-limits/groups/by-key/${encodeURIComponent(group.groupKey)}`;
}

/** Sets the rate limit of an action type or a group (PUT /rate-limits/…); the API checks the bounds and names a bad field. */
function RateLimitForm({ onDone }: { onDone: () => void }) {
  const [scope, setScope] = useState<LimitScope>('type');
  const [target, setTarget] = useState('');
  const [perSecond, setPerSecond] = useState('');
  const [burst, setBurst] = useState('');
  const { busy, error, run } = useAction(onDone);
  return (
    <form
      class="filters"
      data-testid="rate-limit-form"
      onSubmit={(event) => {
        event.preventDefault();
        const body = { perSecond: Number(perSecond), ...(burst.trim() === '' ? {} : { burst: Number(burst) }) };
        void run(async () => {
          await apiPutJson(limitPath(scope, target), body);
          setTarget('');
        });
      }}
    >
      <label>
        Limit
        <select name="limitScope" data-testid="rate-limit-scope" value={scope} onChange={(e) => setScope((e.target as HTMLSelectElement).value as LimitScope)}>
          <option value="type">an action type</option>
          <option value="group">a group</option>
        </select>
      </label>
      <label>
        {scope === 'group' ? 'Group: lock id or group key' : 'Action type'}
        <input
          name="limitTarget"
          data-testid="rate-limit-target"
          required
          placeholder={scope === 'group' ? 'e.g. 42 or tenant:42' : 'e.g. invoice.send'}
          value={target}
          onInput={(e) => setTarget((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        Per second
        <input
          name="perSecond"
          data-testid="rate-limit-per-second"
          type="number"
          required
          min="0.001"
          max="100000"
          step="any"
          placeholder="e.g. 5"
          value={perSecond}
          onInput={(e) => setPerSecond((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        Burst
        <input
          name="burst"
          data-testid="rate-limit-burst"
          type="number"
          min="1"
          max="100000"
          step="1"
          placeholder="1"
          value={burst}
          onInput={(e) => setBurst((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit" data-testid="rate-limit-submit" disabled={busy}>
        Set limit
      </button>
      <ErrorNotice error={error} />
    </form>
  );
}

/**
 * Rate limits in force (GET /rate-limits): per action type, with Clear for a
 * runtime override (back to the handler's default, or none), and per group,
 * with Remove; the form above them sets either.
 */
export function RateLimits({ generation, onDone }: { generation: number; onDone: () => void }) {
  const limits = usePoll((signal) => apiGet<RateLimitsPage>('/rate-limits', signal), REFRESH_MS, [generation]);
  const { busy, error, run } = useAction(onDone);
  const types = limits.data?.items ?? [];
  const groups = limits.data?.groups ?? [];
  return (
    <div>
      <h4>Rate limits</h4>
      <RateLimitForm onDone={onDone} />
      <ErrorNotice error={limits.error ?? error} />
      {types.length === 0 ? (
        <p data-testid="rate-limits-empty">No action type is rate limited.</p>
      ) : (
        <div class="overflow-auto">
          <table class="striped cards" data-testid="rate-limits">
            <thead>
              <tr>
                <th scope="col">type</th>
                <th scope="col">per second</th>
                <th scope="col">burst</th>
                <th scope="col">from</th>
                <th scope="col">changed</th>
                <th scope="col">
                  <span class="visually-hidden">clear</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {types.map((l) => (
                <tr key={l.type} data-type={l.type}>
                  <td data-label="type">
                    <code>{l.type}</code>
                  </td>
                  <td data-label="per second">{l.perSecond}</td>
                  <td data-label="burst">{l.burst}</td>
                  <td data-label="from">
                    {l.source === 'override' ? 'override' : 'handler default'}
                    {l.source === 'override' && l.handlerDefault ? ` (default ${l.handlerDefault.perSecond}/s)` : ''}
                  </td>
                  <td data-label="changed" class="nowrap">
                    {formatInstant(l.updatedAt)}
                  </td>
                  <td class="card-actions">
                    {l.source === 'override' && (
                      <button
                        type="button"
                        class="outline small"
                        aria-label={`Clear the rate limit override of ${l.type}`}
                        disabled={busy}
                        onClick={() => void run(() => apiDelete(`/rate-limits/${encodeURIComponent(l.type)}`))}
                      >
                        Clear
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {groups.length === 0 ? (
        <p data-testid="group-rate-limits-empty">No group is rate limited.</p>
      ) : (
        <div class="overflow-auto">
          <table class="striped cards" data-testid="group-rate-limits">
            <thead>
              <tr>
                <th scope="col">group</th>
                <th scope="col">per second</th>
                <th scope="col">burst</th>
                <th scope="col">changed</th>
                <th scope="col">
                  <span class="visually-hidden">remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {groups.map((g) => (
                <tr key={g.lockId} data-lock-id={g.lockId}>
                  <td data-label="group">
                    <GroupName lockId={g.lockId} groupKey={g.groupKey} />
                  </td>
                  <td data-label="per second">{g.perSecond}</td>
                  <td data-label="burst">{g.burst}</td>
                  <td data-label="changed" class="nowrap">
                    {formatInstant(g.updatedAt)}
                  </td>
                  <td class="card-actions">
                    <button
                      type="button"
                      class="outline small"
                      aria-label={`Remove the rate limit of group ${g.groupKey ?? g.lockId}`}
                      disabled={busy}
                      onClick={() => void run(() => apiDelete(`/rate-limits/groups/${g.lockId}`))}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {limits.data?.groupsNextCursor && <p>More groups are limited: GET /rate-limits/groups lists them all.</p>}
        </div>
      )}
    </div>
  );
}
