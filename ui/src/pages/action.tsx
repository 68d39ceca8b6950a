import { Link } from 'wouter-preact';
import { ApiError, apiGet } from '../api';
import type { AttemptResource, BoundedActionResource } from '../api-types';
import { ActionButtons } from '../components/action-buttons';
import { ErrorNotice } from '../components/error-notice';
import { GroupName } from '../components/group-name';
import { StatusBadge } from '../components/status-badge';
import { formatInstant, formatJson, formatSpan, formatRuns } from '../format';
import { usePoll } from '../use-poll';

const REFRESH_MS = 3_000;

type ActionWithTrace = BoundedActionResource & { trace: AttemptResource[] };

/**
 * The action with its content, or, when that is over the service's
 * MAX_RESPONSE_BYTES (413), without it (`content=false`): the page always shows the action.
 */
async function readAction(id: string, signal: AbortSignal): Promise<ActionWithTrace> {
  const path = `/actions/${encodeURIComponent(id)}`;
  try {
    return await apiGet<ActionWithTrace>(path, signal);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 413) throw error;
    return apiGet<ActionWithTrace>(`${path}?content=false`, signal);
  }
}

/** One action: its fields, payload, result, error and attempt trace, with cancel and retry where allowed. */
export function ActionPage({ id }: { id: string }) {
  const action = usePoll((signal) => readAction(id, signal), REFRESH_MS, [id]);
  const a = action.data;
  return (
    <section aria-labelledby="action-title">
      <nav aria-label="breadcrumb">
        <ul>
          <li>
            <Link href="/actions">Actions</Link>
          </li>
          <li>#{id}</li>
        </ul>
      </nav>
      <h2 id="action-title">Action #{id}</h2>
      <ErrorNotice error={action.error} />
      {a && (
        <>
          <p>
            <StatusBadge value={a.status} /> <ActionButtons id={a.id} status={a.status} onDone={action.reload} />
          </p>
          <div class="overflow-auto">
            <table data-testid="action-fields">
              <tbody>
                <tr>
                  <th scope="row">type</th>
                  <td>{a.type}</td>
                </tr>
                <tr>
                  <th scope="row">group</th>
                  <td>
                    <GroupName lockId={a.lockId} groupKey={a.groupKey} empty="none" />
                  </td>
                </tr>
                <tr>
                  <th scope="row">tenant</th>
                  <td data-testid="action-tenant">{a.tenant}</td>
                </tr>
                <tr>
                  <th scope="row">attempts</th>
                  <td>
                    <span data-testid="action-runs">{formatRuns(a)}</span> (at most {a.maxAttempts} charged; on failure: {a.onFailure})
                  </td>
                </tr>
                <tr>
                  <th scope="row">created</th>
                  <td>{formatInstant(a.createdAt)}</td>
                </tr>
                <tr>
                  <th scope="row">run at</th>
                  <td>{formatInstant(a.runAt)}</td>
                </tr>
                <tr>
                  <th scope="row">started</th>
                  <td>{formatInstant(a.startedAt)}</td>
                </tr>
                <tr>
                  <th scope="row">finished</th>
                  <td>{formatInstant(a.finishedAt)}</td>
                </tr>
                {a.idempotencyKey && (
                  <tr>
                    <th scope="row">idempotency key</th>
                    <td>{a.idempotencyKey}</td>
                  </tr>
                )}
                {a.retryOf && (
                  <tr>
                    <th scope="row">retry of</th>
                    <td>
                      <Link href={`/actions/${a.retryOf}`}>#{a.retryOf}</Link>
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          {a.contentOmitted && (
            <p data-testid="content-omitted">
              Too large to show here: payload {a.contentBytes?.payload ?? 0} bytes, result {a.contentBytes?.result ?? 0} bytes, last error{' '}
              {a.contentBytes?.lastError ?? 0} bytes, attempts' errors {a.contentBytes?.trace ?? 0} bytes (over the service's MAX_RESPONSE_BYTES). Read them by
              SQL.
            </p>
          )}
          {a.lastError && (
            <>
              <h3>Last error</h3>
              <pre class="error-text" data-testid="action-error">
                {a.lastError}
              </pre>
            </>
          )}
          {!a.contentOmitted && (
            <>
              <h3>Payload</h3>
              <pre data-testid="action-payload">{formatJson(a.payload)}</pre>
              <h3>Result</h3>
              <pre>{a.result === null ? '–' : formatJson(a.result)}</pre>
            </>
          )}
          <h3>Attempts</h3>
          {a.trace.length === 0 ? (
            <p>No attempt has ended yet.</p>
          ) : (
            <div class="overflow-auto">
              <table class="striped" data-testid="action-trace">
                <thead>
                  <tr>
                    <th scope="col">attempt</th>
                    <th scope="col">outcome</th>
                    <th scope="col">worker</th>
                    <th scope="col">chunk</th>
                    <th scope="col">started</th>
                    <th scope="col">took</th>
                    <th scope="col">error</th>
                  </tr>
                </thead>
                <tbody>
                  {a.trace.map((t) => (
                    <tr key={t.attempt}>
                      <td>{t.attempt}</td>
                      <td>
                        <StatusBadge value={t.outcome} />
                      </td>
                      <td class="nowrap">{t.workerId}</td>
                      <td class="nowrap" data-testid="attempt-chunk" title={t.chunkOf ? 'ran in an ordered chunk that started at this action' : 'ran alone'}>
                        {t.chunkOf ? <Link href={`/actions/${t.chunkOf}`}>from #{t.chunkOf}</Link> : ''}
                      </td>
                      <td class="nowrap">{formatInstant(t.startedAt)}</td>
                      <td>{formatSpan(t.startedAt, t.finishedAt)}</td>
                      <td class="error-text">
                        {t.error ?? ''}
                        {t.errorStack && (
                          <details data-testid="attempt-stack">
                            <summary>stack</summary>
                            <pre>{t.errorStack}</pre>
                          </details>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}
