import { useState } from 'preact/hooks';
import { apiGet, apiPostJson } from '../api';
import type { BulkOperationResource, ScheduleResource } from '../api-types';
import { ErrorNotice } from '../components/error-notice';
import { formatInstant } from '../format';
import { usePoll } from '../use-poll';
import { FlowControl } from './flow-control';

const REFRESH_MS = 5_000;

/** Recurring actions with their next run (GET /schedules). */
function Schedules() {
  const schedules = usePoll((signal) => apiGet<{ items: ScheduleResource[] }>('/schedules', signal), REFRESH_MS, []);
  const items = schedules.data?.items ?? [];
  return (
    <section>
      <h3>Recurring actions</h3>
      <ErrorNotice error={schedules.error} />
      {items.length === 0 ? (
        <p data-testid="schedules-empty">No recurring action.</p>
      ) : (
        <div class="overflow-auto">
          <table class="striped cards" data-testid="schedules">
            <thead>
              <tr>
                <th scope="col">name</th>
                <th scope="col">cron</th>
                <th scope="col">time zone</th>
                <th scope="col">type</th>
                <th scope="col">next run</th>
                <th scope="col">last run</th>
                <th scope="col">catch-up</th>
                <th scope="col">skipped</th>
              </tr>
            </thead>
            <tbody>
              {items.map((s) => (
                <tr key={s.name}>
                  <td data-label="name">{s.name}</td>
                  <td data-label="cron" class="nowrap">
                    <code>{s.cron}</code>
                  </td>
                  <td data-label="time zone">{s.timeZone}</td>
                  <td data-label="type">{s.type}</td>
                  <td data-label="next run" class="nowrap" data-testid="schedule-next-run">
                    {formatInstant(s.nextRunAt)}
                  </td>
                  <td data-label="last run" class="nowrap">
                    {formatInstant(s.lastRunAt)}
                  </td>
                  <td data-label="catch-up">{s.catchUp === 'fill' ? `fill ${s.catchUpLimit}` : 'skip'}</td>
                  <td data-label="skipped">{s.skippedTicks}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

interface BulkForm {
  operation: 'retry' | 'cancel';
  type: string;
  lockId: string;
  status: string;
  errorContains: string;
}

/** The filter of a form, without its empty fields. */
function filterOf(form: BulkForm): Record<string, string> {
  const filter: Record<string, string> = {};
  for (const name of ['type', 'lockId', 'status', 'errorContains'] as const) if (form[name].trim() !== '') filter[name] = form[name].trim();
  return filter;
}

/** Bulk retry or cancel: a dry run shows the count, then Apply runs it (POST /bulk-operations). */
function BulkOperation({ onDone }: { onDone: () => void }) {
  const [form, setForm] = useState<BulkForm>({ operation: 'retry', type: '', lockId: '', status: 'failed', errorContains: '' });
  const [counted, setCounted] = useState<{ form: BulkForm; matched: number } | null>(null);
  const [result, setResult] = useState<BulkOperationResource | null>(null);
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);
  const set = (name: keyof BulkForm) => (e: Event) => {
    setForm({ ...form, [name]: (e.target as HTMLInputElement).value });
    setCounted(null);
  };
  const send = async (dryRun: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      const op = await apiPostJson<BulkOperationResource>('/bulk-operations', { operation: form.operation, filter: filterOf(form), dryRun });
      if (dryRun) setCounted({ form, matched: op.matched });
      else {
        setResult(op);
        setCounted(null);
      }
      onDone();
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section>
      <h3>Bulk retry or cancel</h3>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          void send(true);
        }}
      >
        <label>
          Operation
          <select name="operation" value={form.operation} onChange={set('operation')}>
            <option value="retry">retry</option>
            <option value="cancel">cancel</option>
          </select>
        </label>
        <label>
          Status
          <select name="status" value={form.status} onChange={set('status')}>
            <option value="">any accepted</option>
            <option value="failed">failed</option>
            <option value="pending">pending</option>
            <option value="running">running</option>
          </select>
        </label>
        <label>
          Type
          <input name="type" placeholder="e.g. instance.create" value={form.type} onInput={set('type')} />
        </label>
        <label>
          lockId
          <input name="lockId" inputMode="numeric" placeholder="e.g. 26" value={form.lockId} onInput={set('lockId')} />
        </label>
        <label>
          Error contains
          <input name="errorContains" placeholder="e.g. ECONNREFUSED" value={form.errorContains} onInput={set('errorContains')} />
        </label>
        <button type="submit" data-testid="bulk-dry-run" disabled={busy}>
          Count (dry run)
        </button>
      </form>
      {counted && (
        <p>
          <span data-testid="bulk-matched">{counted.matched}</span> action(s) match.{' '}
          <button type="button" data-testid="bulk-apply" disabled={busy || counted.matched === 0} onClick={() => void send(false)}>
            {counted.form.operation === 'retry' ? 'Retry' : 'Cancel'} them
          </button>
        </p>
      )}
      {result && (
        <p role="status" data-testid="bulk-result">
          {result.operation} {result.id}: {result.applied} of {result.matched} changed{result.error ? ` (stopped: ${result.error})` : ''}
        </p>
      )}
      <ErrorNotice error={error} />
    </section>
  );
}

/** The audit of bulk operations, newest first (GET /bulk-operations). */
function Audit({ generation }: { generation: number }) {
  const audit = usePoll((signal) => apiGet<{ items: BulkOperationResource[] }>('/bulk-operations', signal), REFRESH_MS, [generation]);
  const items = audit.data?.items ?? [];
  return (
    <section>
      <h3>Bulk operations (audit)</h3>
      <ErrorNotice error={audit.error} />
      {items.length === 0 ? (
        <p>None yet.</p>
      ) : (
        <div class="overflow-auto">
          <table class="striped cards" data-testid="bulk-audit">
            <thead>
              <tr>
                <th scope="col">id</th>
                <th scope="col">operation</th>
                <th scope="col">who</th>
                <th scope="col">when</th>
                <th scope="col">filter</th>
                <th scope="col">matched</th>
                <th scope="col">applied</th>
              </tr>
            </thead>
            <tbody>
              {items.map((o) => (
                <tr key={o.id}>
                  <td data-label="id">{o.id}</td>
                  <td data-label="operation">
                    {o.operation}
                    {o.dryRun ? ' (dry run)' : ''}
                  </td>
                  <td data-label="who" class="nowrap">
                    {o.actor}
                  </td>
                  <td data-label="when" class="nowrap">
                    {formatInstant(o.startedAt)}
                  </td>
                  <td data-label="filter">
                    <code>{JSON.stringify(o.filter)}</code>
                  </td>
                  <td data-label="matched">{o.matched}</td>
                  <td data-label="applied">{o.error ? `${o.applied} (stopped: ${o.error})` : o.applied}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Operator controls: flow control (pauses, drain, rate limits), recurring actions, bulk retry or cancel with a dry run, and the audit. */
export function Operations() {
  const [generation, setGeneration] = useState(0);
  return (
    <section>
      <h2>Operations</h2>
      <FlowControl />
      <Schedules />
      <BulkOperation onDone={() => setGeneration((g) => g + 1)} />
      <Audit generation={generation} />
    </section>
  );
}
