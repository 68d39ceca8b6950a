import { Injectable } from '@nestjs/common';
import { SerialSession } from '../../database/serial-session';
import { ActionHandlersRegistry } from '../../handlers/action-handlers.registry';
import { NotificationListener } from './notification-listener.service';
import { RELAY_WAKE_SQL, WAKE_PROBE_SQL } from '../sql/wake-probe.sql';

/** Payload of a wake-up a leader passes on because it had no room: every instance claims at once. */
export const RELAYED_WAKE_PAYLOAD = 'relayed';
/**
 * First key of the wake-up leadership's advisory lock (ASCII "aqW!"): the
 * two-int4 form lives in a key space apart from the one-bigint migration lock
 * (src/database/migrations.service.ts).
 */
export const WAKE_LOCK_NAMESPACE = 0x61715721;
/**
 * How long a non-leading idle instance waits after a notification before it
 * looks for itself (ms; a random extra of up to the same again spreads the
 * instances). The leader has claimed in about a millisecond by then, so the
 * look finds nothing and costs one index probe; it only finds work when the
 * leader is gone or lost its connection without the server noticing. A
 * shorter delay costs each idle instance more probes per second while
 * notifications flow (at most one per delay), a longer one more latency in
 * those failures.
 */
export const FOLLOWER_PROBE_DELAY_MS = 200;
/**
 * A non-leading instance's probe counts a head as ready only once it has been
 * due this long (ms): a fresh one is the leader's, which claims it within a
 * millisecond or two, so the followers' polls do not race it; a head still
 * pending after this is one the leader could not take (gone, full, capped).
 */
export const LEADER_GRACE_MS = 100;
/** Longest wait for the probe on the LISTEN connection (ms): an unreachable database must not hold the poll. */
const PROBE_TIMEOUT_MS = 2_000;

/** What the idle instance's probe found. */
export interface WakeProbe {
  /** A claimable (not quarantined) head of this instance's types is due. */
  ready: boolean;
  /** A suspect (quarantined) head of these types is due. */
  suspectReady: boolean;
}

/**
 * What to do on a wake-up: claim now, probe now, or probe after
 * FOLLOWER_PROBE_DELAY_MS.
 */
export type WakeResponse = 'claim' | 'probe-now' | 'probe-later';

/**
 * Decides how an instance answers a wake-up, so that a notification costs
 * one claim, not one per instance (eight idle instances made 8 claims
 * per action).
 * @param notice `payload`: the notification's, undefined after the LISTEN
 *   connection (re)connected; `leads`: this instance holds the wake-up
 *   leadership of its types; `idle`: its last claim found the queue empty.
 * @returns `claim` for the leader, for an instance that is working (not idle:
 *   it would claim at its next freed slot anyway) and for a relayed wake-up;
 *   `probe-now` after a (re)connect (notifications were lost, and the probe
 *   takes a free leadership); else `probe-later`.
 */
export function respondToWake(notice: { payload: string | undefined; leads: boolean; idle: boolean }): WakeResponse {
  if (notice.payload === undefined) return 'probe-now';
  if (notice.leads || !notice.idle || notice.payload === RELAYED_WAKE_PAYLOAD) return 'claim';
  return 'probe-later';
}

/**
 * Second key of the leadership lock: a 32-bit FNV-1a hash of the sorted
 * types, as a signed int4. Instances running the same types share one
 * leader; an instance with other types leads its own set, so no type is left
 * without a claimer. A collision only makes two sets share a leader (the
 * followers' probe still finds the work).
 */
export function wakeLockKey(types: readonly string[]): number {
  const FNV_OFFSET = 0x811c9dc5;
  const FNV_PRIME = 0x01000193;
  let hash = FNV_OFFSET;
  for (const ch of [...types].sort().join('\u0000')) {
    hash ^= ch.codePointAt(0)!;
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash | 0;
}

/**
 * The wake-up leadership of this instance: one instance per set of handled
 * types holds a session advisory lock on its LISTEN connection and claims at
 * every notification; the others (idle) look later with one cheap probe, and
 * claim only if it finds work. The lock ends with the connection, so a dead
 * leader's place is taken by the next probe of another instance (at the
 * latest its poll). The probe is also the whole poll of an idle instance.
 */
@Injectable()
export class WakeLeadership {
  /** The LISTEN connection's session in which this instance holds the lock, if any. */
  private ledOn: SerialSession | null = null;
  /** The probe statement until it has ended on the connection (its callers may have stopped waiting sooner). */
  private inFlight: Promise<WakeProbe | null> | null = null;
  /** A relay is queued or running: another would announce nothing more. */
  private relaying = false;

  constructor(
    private readonly listener: NotificationListener,
    private readonly registry: ActionHandlersRegistry,
  ) {}

  /** Whether this instance leads now (holds the lock on its current LISTEN connection). */
  get leads(): boolean {
    const session = this.listener.session;
    return session !== null && session === this.ledOn;
  }

  /**
   * Runs the probe (WAKE_PROBE_SQL) on the LISTEN connection, taking the
   * leadership if it is free. Calls while a probe statement runs share it,
   * also after an earlier caller stopped waiting for it: the connection never
   * holds more than one probe.
   * @returns null when there is no LISTEN connection (then claim as before).
   * @throws the driver's error, or an Error after PROBE_TIMEOUT_MS (the
   *   statement goes on to its end, and later calls share it meanwhile).
   */
  probe(): Promise<WakeProbe | null> {
    const session = this.listener.session;
    if (session === null) return Promise.resolve(null);
    this.inFlight ??= this.runProbe(session).finally(() => (this.inFlight = null));
    const probe = this.inFlight;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`wake probe did not answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS)),
    );
    return Promise.race([probe, timeout]).finally(() => clearTimeout(timer));
  }

  /**
   * Passes a wake-up on to every instance (a leader without room for the
   * work); one at a time (a relay queued or running announces the same);
   * errors are ignored: the others' probe and poll remain.
   */
  relay(): void {
    const session = this.listener.session;
    if (session === null || this.relaying) return;
    this.relaying = true;
    void session
      .query({ ...RELAY_WAKE_SQL, values: [RELAYED_WAKE_PAYLOAD] })
      .catch(() => undefined)
      .finally(() => (this.relaying = false));
  }

  private async runProbe(session: SerialSession): Promise<WakeProbe | null> {
    const types = this.registry.types();
    const leads = session === this.ledOn;
    const values = [types, leads, WAKE_LOCK_NAMESPACE, wakeLockKey(types), leads ? 0 : LEADER_GRACE_MS];
    const { rows } = await session.query<{ leads: boolean; ready: boolean; suspect_ready: boolean }>({ ...WAKE_PROBE_SQL, values });
    if (rows[0].leads) this.ledOn = session;
    return { ready: rows[0].ready, suspectReady: rows[0].suspect_ready };
  }
}
