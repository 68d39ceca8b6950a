import { useState } from 'preact/hooks';
import { apiDelete, apiGet, apiPostJson } from '../api';
import type { DrainResource, PauseResource } from '../api-types';
import { ErrorNotice } from '../components/error-notice';
import { GroupName } from '../components/group-name';
import { formatInstant } from '../format';
import { groupTarget } from '../group-target';
import { useAction } from '../use-action';
import { usePoll } from '../use-poll';
import { RateLimits } from './rate-limits';

const REFRESH_MS = 5_000;
/** Pauses shown at most (GET /pauses pages by 100 at most; more than that is a script's job). */
const PAUSES_SHOWN = 100;

type PauseScope = PauseResource['scope'];

/** The queue as a whole (GET /queue/drain): running, paused, or drained; pause, drain and resume it. */
function QueueState({ generation, onDone }: { generation: number; onDone: () => void }) {
  const drain = usePoll((signal) => apiGet<DrainResource>('/queue/drain', signal), REFRESH_MS, [generation]);
  const { busy, error, run } = useAction(onDone);
  const d = drain.data;
  const state = !d ? '…' : !d.draining ? 'running' : d.drained ? 'paused, drained' : `paused, ${d.running} still running`;
  return (
    <div>
      <p>
        Queue: <strong data-testid="queue-state">{state}</strong>
        {d?.draining && (
          <small>
            {' '}
            since {formatInstant(d.since)}
            {d.reason ? ` (${d.reason})` : ''}
          </small>
        )}
      </p>
      <p class="filters">
        {d?.draining ? (
          <button type="button" data-testid="queue-resume" disabled={busy} onClick={() => void run(() => apiDelete('/queue/drain'))}>
            Resume the queue
          </button>
        ) : (
          <>
            <button
              type="button"
              data-testid="queue-pause"
              disabled={busy || !d}
              onClick={() => void run(() => apiPostJson('/pauses', { scope: 'queue', reason: 'paused from the dashboard' }))}
            >
              Pause the queue
            </button>
            <button
              type="button"
              class="secondary"
              data-testid="queue-drain"
              disabled={busy || !d}
              onClick={() => void run(() => apiPostJson('/queue/drain', {}))}
            >
              Drain (pause, let running actions finish)
            </button>
          </>
        )}
      </p>
      <ErrorNotice error={drain.error ?? error} />
    </div>
  );
}

/** The body of POST /pauses for the form's fields. */
function pauseBody(scope: PauseScope, target: string, reason: string): object {
  const why = reason.trim() === '' ? {} : { reason: reason.trim() };
  if (scope === 'queue') return { scope, ...why };
  if (scope === 'type') return { scope, type: target.trim(), ...why };
  return { scope, ...groupTarget(target), ...why };
}

/** Pause a group (lock id or group key), an action type or the whole queue (POST /pauses). */
function PauseForm({ onDone }: { onDone: () => void }) {
  const [scope, setScope] = useState<PauseScope>('group');
  const [target, setTarget] = useState('');
  const [reason, setReason] = useState('');
  const { busy, error, run } = useAction(onDone);
  return (
    <form
      class="filters"
      data-testid="pause-form"
      onSubmit={(event) => {
        event.preventDefault();
        void run(async () => {
          await apiPostJson<PauseResource>('/pauses', pauseBody(scope, target, reason));
          setTarget('');
        });
      }}
    >
      <label>
        Pause
        <select name="pauseScope" data-testid="pause-scope" value={scope} onChange={(e) => setScope((e.target as HTMLSelectElement).value as PauseScope)}>
          <option value="group">a group</option>
          <option value="type">an action type</option>
          <option value="queue">the whole queue</option>
        </select>
      </label>
      {scope !== 'queue' && (
        <label>
          {scope === 'group' ? 'Group: lock id or group key' : 'Action type'}
          <input
            name="pauseTarget"
            data-testid="pause-target"
            required
            placeholder={scope === 'group' ? 'e.g. 26 or tenant:42' : 'e.g. invoice.send'}
            value={target}
            onInput={(e) => setTarget((e.target as HTMLInputElement).value)}
          />
        </label>
      )}
      <label>
        Reason
        <input name="pauseReason" placeholder="e.g. payments API down" value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit" data-testid="pause-submit" disabled={busy}>
        Pause
      </button>
      <ErrorNotice error={error} />
    </form>
  );
}

/** What a pause holds back, as a cell. */
function PauseTarget({ pause }: { pause: PauseResource }) {
  if (pause.scope === 'queue') return <>the whole queue</>;
  if (pause.scope === 'type') return <code>{pause.type}</code>;
  return <GroupName lockId={pause.lockId} groupKey={pause.groupKey} />;
}

/** Active pauses (GET /pauses), each with its Resume button (DELETE /pauses/:id). */
function Pauses({ generation, onDone }: { generation: number; onDone: () => void }) {
  const pauses = usePoll((signal) => apiGet<{ items: PauseResource[] }>(`/pauses?limit=${PAUSES_SHOWN}`, signal), REFRESH_MS, [generation]);
  const { busy, error, run } = useAction(onDone);
  const items = pauses.data?.items ?? [];
  return (
    <div>
      <h4>Active pauses</h4>
      <ErrorNotice error={pauses.error ?? error} />
      {items.length === 0 ? (
        <p data-testid="pauses-empty">Nothing is paused.</p>
      ) : (
        <div class="overflow-auto">
          <table class="striped cards" data-testid="pauses">
            <thead>
              <tr>
                <th scope="col">id</th>
                <th scope="col">scope</th>
                <th scope="col">what</th>
                <th scope="col">reason</th>
                <th scope="col">since</th>
                <th scope="col">until</th>
                <th scope="col">
                  <span class="visually-hidden">resume</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((p) => (
                <tr key={p.id} data-pause-id={p.id} data-scope={p.scope} data-lock-id={p.lockId ?? ''}>
                  <td data-label="id">{p.id}</td>
                  <td data-label="scope">{p.scope}</td>
                  <td data-label="what">
                    <PauseTarget pause={p} />
                  </td>
                  <td data-label="reason">{p.reason ?? '–'}</td>
                  <td data-label="since" class="nowrap">
                    {formatInstant(p.createdAt)}
                  </td>
                  <td data-label="until" class="nowrap">
                    {p.until ? formatInstant(p.until) : 'until resumed'}
                  </td>
                  <td class="card-actions">
                    <button
                      type="button"
                      class="outline"
                      data-testid="pause-resume"
                      aria-label={`Resume pause ${p.id}`}
                      disabled={busy}
                      onClick={() => void run(() => apiDelete(`/pauses/${p.id}`))}
                    >
                      Resume
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

/**
 * Flow control (docs/flow-control.md): the queue's state with pause, drain and
 * resume; a form to pause a group, a type or the queue; the active pauses with
 * a Resume button each; the rate limits per type and per group, with their
 * editor. Every control is a row in
 * the database, obeyed by every instance at its next claim.
 */
export function FlowControl() {
  const [generation, setGeneration] = useState(0);
  const changed = () => setGeneration((g) => g + 1);
  return (
    <section>
      <h3>Flow control</h3>
      <QueueState generation={generation} onDone={changed} />
      <PauseForm onDone={changed} />
      <Pauses generation={generation} onDone={changed} />
      <RateLimits generation={generation} onDone={changed} />
    </section>
  );
}
