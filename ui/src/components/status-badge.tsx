import type { ActionStatus, AttemptOutcome } from '../api-types';

/** An action status or attempt outcome as a coloured label (the text carries the meaning, not only the colour). */
export function StatusBadge({ value }: { value: ActionStatus | AttemptOutcome | 'running' }) {
  return <span class={`badge badge-${value.replace('_', '-')}`}>{value.replace('_', ' ')}</span>;
}
