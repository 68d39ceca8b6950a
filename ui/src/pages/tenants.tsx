import { apiGet } from '../api';
import type { StatsResource } from '../api-types';
import { ErrorNotice } from '../components/error-notice';
import { formatCount, formatSeconds } from '../format';
import { usePoll } from '../use-poll';

/** How often the figures refresh (ms), as the overview's counts. */
const REFRESH_MS = 2_000;

/**
 * Tenants: the tenants with the largest backlog (`GET /stats` `tenants.top`,
 * STATS_TENANTS_TOP of them) with their backlog, running actions, oldest
 * wait, weight and maximum running, and every other tenant summed in a last
 * row. Only tenants with pending or running work are listed. Refreshes every 2 s.
 */
export function Tenants() {
  const stats = usePoll((signal) => apiGet<StatsResource>('/stats', signal), REFRESH_MS, []);
  const tenants = stats.data?.tenants;
  return (
    <section aria-labelledby="tenants-title">
      <hgroup>
        <h2 id="tenants-title">Tenants</h2>
        <p aria-live="off">{stats.updatedAt ? `Updated ${stats.updatedAt.toLocaleTimeString('en-GB')}` : 'Loading…'}</p>
      </hgroup>
      <ErrorNotice error={stats.error} />
      {tenants && tenants.top.length === 0 && <p data-testid="no-tenants">No tenant has pending or running work.</p>}
      {tenants && tenants.top.length > 0 && (
        <div class="overflow-auto">
          <table class="striped" data-testid="tenants-table">
            <caption>
              Tenants with pending or running work, the largest backlog first. Oldest wait: since the tenant's oldest due head became due (paused and
              rate-limited heads included).
            </caption>
            <thead>
              <tr>
                <th scope="col">tenant</th>
                <th scope="col">backlog</th>
                <th scope="col">running</th>
                <th scope="col">oldest wait</th>
                <th scope="col">weight</th>
                <th scope="col">max running</th>
              </tr>
            </thead>
            <tbody>
              {tenants.top.map((t) => (
                <tr key={t.tenant} data-tenant={t.tenant}>
                  <th scope="row">{t.tenant}</th>
                  <td data-testid="tenant-backlog">{formatCount(t.backlog)}</td>
                  <td data-testid="tenant-running">{formatCount(t.running)}</td>
                  <td data-testid="tenant-oldest-wait">{t.oldestWaitingAgeSeconds === null ? 'nothing due' : formatSeconds(t.oldestWaitingAgeSeconds)}</td>
                  <td>{t.weight}</td>
                  <td>{t.maxRunning === null ? 'no cap' : formatCount(t.maxRunning)}</td>
                </tr>
              ))}
              {tenants.others.tenants > 0 && (
                <tr data-testid="tenants-others">
                  <th scope="row">{formatCount(tenants.others.tenants)} other tenants</th>
                  <td>{formatCount(tenants.others.backlog)}</td>
                  <td>{formatCount(tenants.others.running)}</td>
                  <td>{tenants.others.oldestWaitingAgeSeconds === null ? 'nothing due' : `up to ${formatSeconds(tenants.others.oldestWaitingAgeSeconds)}`}</td>
                  <td colSpan={2}>summed</td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
