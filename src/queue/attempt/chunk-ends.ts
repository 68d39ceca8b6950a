import type { ChunkOutcome } from '../../handlers/chunk-handler.host';
import { AttemptEnd } from './attempt-end';
import { LeasedActionRow } from '../sql/leased-action.sql';

/** How a chunk's handler ended, as the runner saw it. */
export type ChunkFinish =
  /** It returned (maybe after an abort, within the grace): what it reported, and the action whose cancel stopped it, if one did. */
  | { kind: 'reported'; value: unknown; cancelledId?: string }
  /** It threw: `end` is the first action's (a charged failure, a back-off, a release). */
  | { kind: 'threw'; end: AttemptEnd }
  /** Its signal stopped it and it reported nothing: `end` is what the stop means for the first action. */
  | { kind: 'aborted'; end: AttemptEnd; cancelledId?: string };

/** How one action ends from the outcome reported for it (the runner's rules for one attempt). */
export type EndOf = (row: LeasedActionRow, outcome: ChunkOutcome) => AttemptEnd;

/**
 * The end of each action of a chunk: what running them one at a time would
 * have allowed. Ends are kept in order up to and including the first one that
 * still holds the group (a retry, a release or back-off, a failure under
 * `block`); every action after it is released, uncharged, and waits behind
 * it. An action whose cancel stopped the chunk ends `cancelled` (a cancelled
 * action holds nothing). The database adds the fence of the prefix
 * (042-ordered-chunks.up.sql, point 4).
 *
 * @param rows the chunk, ids ascending.
 * @param finish how its handler ended.
 * @param endOf the runner's mapping of one reported outcome to an end.
 * @returns one end per row, in order.
 */
export function chunkEnds(rows: LeasedActionRow[], finish: ChunkFinish, endOf: EndOf): AttemptEnd[] {
  const ends: (AttemptEnd | undefined)[] = rows.map(() => undefined);
  if (finish.kind === 'reported') {
    const value = finish.value;
    if (!Array.isArray(value) || value.length > rows.length) {
      const error = new TypeError(`handleChunk must return an array of at most ${rows.length} outcomes (one per action, in order), not ${describe(value)}`);
      ends[0] = endOf(rows[0], { ok: false, error });
    } else {
      value.forEach((outcome: unknown, i) => (ends[i] = endOf(rows[i], isOutcome(outcome) ? outcome : invalid(i, outcome))));
    }
  } else {
    const stop = finish.end;
    // A cancel ends only the action it was asked for; the others are released.
    ends[0] = stop.kind === 'cancelled' ? released('its chunk stopped: another action of it was cancelled', 0) : stop;
  }
  const cancelledId = finish.kind === 'threw' ? undefined : finish.cancelledId;
  let stoppedAt: string | null = null;
  const delayMs = finish.kind === 'aborted' && finish.end.kind === 'released' ? (finish.end.delayMs ?? 0) : 0;
  return rows.map((row, i) => {
    if (row.id === cancelledId) return { kind: 'cancelled', outcome: 'cancelled', error: `cancellation of action ${row.id} was requested` };
    if (stoppedAt !== null) return released(`not run: action ${stoppedAt} before it in its chunk did not finish`, delayMs);
    const end = ends[i] ?? released(finish.kind === 'reported' ? `not reached: handleChunk reported ${i} outcome(s)` : 'not run: its chunk stopped', delayMs);
    if (holdsGroup(end, row)) stoppedAt = row.id;
    return end;
  });
}

/** Whether the action still holds its group after this end (it runs again, or blocks). */
function holdsGroup(end: AttemptEnd, row: LeasedActionRow): boolean {
  return end.kind === 'retry' || end.kind === 'released' || (end.kind === 'failed' && row.on_failure === 'block');
}

function released(error: string, delayMs: number): AttemptEnd {
  return { kind: 'released', outcome: 'released', error, delayMs };
}

function isOutcome(value: unknown): value is ChunkOutcome {
  return typeof value === 'object' && value !== null && typeof (value as { ok?: unknown }).ok === 'boolean';
}

function invalid(index: number, value: unknown): ChunkOutcome {
  return { ok: false, error: new TypeError(`outcome ${index} of handleChunk must be { ok: true, result } or { ok: false, error }, not ${describe(value)}`) };
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return value === null ? 'null' : typeof value;
}
