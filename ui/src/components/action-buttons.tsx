import { useState } from 'preact/hooks';
import { apiPost } from '../api';
import type { ActionStatus } from '../api-types';

/** Props of {@link ActionButtons}. */
export interface ActionButtonsProps {
  id: string;
  status: ActionStatus;
  /** Called after a successful retry or cancel (to reload the page's data). */
  onDone: () => void;
  /** Words after "Retry"/"Cancel" for screen readers, e.g. "head of group 26". */
  subject?: string;
}

/**
 * Retry (from `failed`) and cancel (from `pending`, `failed`, or `running`,
 * which asks the holder to stop) buttons of one action, calling
 * `POST /actions/:id/retry` and `/cancel`. Cancelling asks for confirmation.
 */
export function ActionButtons({ id, status, onDone, subject }: ActionButtonsProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async (verb: 'retry' | 'cancel') => {
    if (verb === 'cancel' && !window.confirm(`Cancel action ${id}?`)) return;
    setBusy(true);
    setError(undefined);
    try {
      await apiPost(`/actions/${id}/${verb}`);
      onDone();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const about = subject ?? `action ${id}`;
  return (
    <span class="action-buttons">
      {status === 'failed' && (
        <button type="button" class="small" disabled={busy} aria-label={`Retry ${about}`} onClick={() => void run('retry')}>
          Retry
        </button>
      )}
      {(status === 'pending' || status === 'failed' || status === 'running') && (
        <button type="button" class="small secondary" disabled={busy} aria-label={`Cancel ${about}`} onClick={() => void run('cancel')}>
          Cancel
        </button>
      )}
      {error && (
        <small class="error-text" role="alert">
          {error}
        </small>
      )}
    </span>
  );
}
