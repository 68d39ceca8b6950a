import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { apiGet, query } from '../api';
import type { GroupResource, GroupTimelineResource } from '../api-types';
import { ActionButtons } from '../components/action-buttons';
import { ErrorNotice } from '../components/error-notice';
import { StatusBadge } from '../components/status-badge';
import { TimelineChart } from '../components/timeline-chart';
import { formatCount, formatInstant, formatSpan } from '../format';
import { usePoll } from '../use-poll';

const REFRESH_MS = 3_000;

/** The group's state: head, its tenant, running, waiting, blocked (and why), with the head's buttons. */
function GroupState({ state, onChange }: { state: GroupResource; onChange: () => void }) {
  return (
    <article data-testid="group-state" aria-labelledby="group-state-title">
      <h3 id="group-state-title" class="visually-hidden">
        State
      </h3>
      <p>
        {state.blocked ? (
          <strong class="error-text" data-testid="group-blocked">
            Blocked: {state.blockedReason}
          </strong>
        ) : state.head ? (
          <span data-testid="group-flowing">{state.running ? 'Running its head.' : 'Waiting for its head to be claimed.'}</span>
        ) : (
          <span data-testid="group-empty">Nothing waiting: the group is drained.</span>
        )}
      </p>
      <p data-testid="group-stored-state">
        {state.storedState ? (
          <>
            Stored state (ctx.groupState): version <strong data-testid="group-stored-state-version">{formatCount(state.storedState.version)}</strong>, last
            changed {formatInstant(state.storedState.updatedAt)}; its value: <code>GET /groups/{state.lockId}/state</code>.
          </>
        ) : (
          'No stored state (ctx.groupState).'
        )}
      </p>
      {state.head && (
        <p data-testid="group-tenant">
          Tenant <strong>{state.head.tenant}</strong>: every action the group holds now is this tenant's (another tenant's action is refused until the group is
          empty).
        </p>
      )}
      {state.head && (
        <p>
          Head <Link href={`/actions/${state.head.id}`}>#{state.head.id}</Link> {state.head.type} <StatusBadge value={state.head.status} />{' '}
          {formatCount(state.pendingCount)} pending.{' '}
          <ActionButtons id={state.head.id} status={state.head.status} subject={`head of group ${state.lockId}`} onDone={onChange} />
        </p>
      )}
    </article>
  );
}

/**
 * One group: its state and a Gantt-style timeline of its recent actions (one
 * row per action in id order, one bar per attempt, coloured by outcome),
 * repeated as a table. Refreshes every 3 s; "Older actions" pages back.
 */
export function Group({ lockId }: { lockId: string }) {
  const [befores, setBefores] = useState<(string | undefined)[]>([undefined]);
  const before = befores[befores.length - 1];
  const state = usePoll((signal) => apiGet<GroupResource>(`/groups/${encodeURIComponent(lockId)}`, signal), REFRESH_MS, [lockId]);
  const timeline = usePoll(
    (signal) => apiGet<GroupTimelineResource>(`/groups/${encodeURIComponent(lockId)}/timeline${query({ limit: 50, before })}`, signal),
    REFRESH_MS,
    [lockId, before],
  );
  const actions = timeline.data?.actions ?? [];
  const reload = () => {
    state.reload();
    timeline.reload();
  };

  return (
    <section aria-labelledby="group-title">
      <nav aria-label="breadcrumb">
        <ul>
          <li>
            <Link href="/groups">Groups</Link>
          </li>
          <li>{lockId}</li>
        </ul>
      </nav>
      <h2 id="group-title">
        Group {state.data?.groupKey != null ? <code data-testid="group-key">{state.data.groupKey}</code> : lockId}
        {state.data?.groupKey != null && <small> (lock id {lockId})</small>}
      </h2>
      <ErrorNotice error={state.error ?? timeline.error} />
      {state.data && <GroupState state={state.data} onChange={reload} />}
      <h3>Timeline</h3>
      {timeline.data && actions.length === 0 && <p>This group has no actions.</p>}
      {actions.length > 0 && <TimelineChart actions={actions} />}
      {actions.length > 0 && (
        <div class="overflow-auto">
          <table class="striped" data-testid="timeline-table">
            <caption>Actions in id order, the order they run in; each attempt with its outcome.</caption>
            <thead>
              <tr>
                <th scope="col">id</th>
                <th scope="col">type</th>
                <th scope="col">status</th>
                <th scope="col">attempts</th>
                <th scope="col">first start</th>
                <th scope="col">finished</th>
                <th scope="col">run time</th>
              </tr>
            </thead>
            <tbody>
              {actions.map((a) => (
                <tr key={a.id} data-action-id={a.id} data-started-at={a.startedAt ?? ''} data-finished-at={a.finishedAt ?? ''}>
                  <td>
                    <Link href={`/actions/${a.id}`}>#{a.id}</Link>
                  </td>
                  <td>{a.type}</td>
                  <td>
                    <StatusBadge value={a.status} />
                  </td>
                  <td>
                    <ul class="attempts">
                      {a.trace.map((t) => (
                        <li key={t.attempt}>
                          {t.attempt}: <StatusBadge value={t.outcome} />
                        </li>
                      ))}
                      {a.current && (
                        <li>
                          {a.current.attempt}: <StatusBadge value="running" />
                        </li>
                      )}
                    </ul>
                  </td>
                  <td class="nowrap">{formatInstant(a.startedAt)}</td>
                  <td class="nowrap">{formatInstant(a.finishedAt)}</td>
                  <td>{formatSpan(a.startedAt, a.finishedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="pager">
        {befores.length > 1 && (
          <button type="button" class="secondary small" onClick={() => setBefores(befores.slice(0, -1))}>
            Newer actions
          </button>
        )}
        {timeline.data?.nextBefore && (
          <button type="button" class="secondary small" onClick={() => setBefores([...befores, timeline.data!.nextBefore!])}>
            Older actions
          </button>
        )}
      </div>
    </section>
  );
}
