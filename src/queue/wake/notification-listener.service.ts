import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Client } from 'pg';
import { dedicatedClient, destroySocket } from '../../database/dedicated-connection';
import { SerialSession } from '../../database/serial-session';
import { shutdownStep } from '../../shutdown-steps';
import { WAKE_UP_PLAN, WakeUpPlan } from './wake-up-plan';

/** Channel the triggers notify when a head becomes claimable. */
export const ACTIONS_READY_CHANNEL = 'actions_ready';
/** Payload on {@link ACTIONS_READY_CHANNEL} when a suspect head became claimable (021-suspect-notify.up.sql). */
export const SUSPECT_DUE_PAYLOAD = 'suspect';
/** Channel the trigger of 013-cancel-notify.up.sql notifies, with the action id, when cancellation of a running action is requested. */
export const ACTIONS_CANCEL_CHANNEL = 'actions_cancel';
/**
 * Longest wait for the LISTEN connection to be made (ms): the reconnect
 * backoff's cap, so a connect that hangs costs no more than the wait between
 * two tries already does.
 */
const CONNECT_TIMEOUT_MS = 5_000;
const RECONNECT_BASE_MS = 200;
const RECONNECT_CAP_MS = 5_000;
/** Longest wait for the LISTEN connection to close on stop (ms). */
export const LISTEN_STOP_TIMEOUT_MS = 1_000;

/** What the listener calls on notifications. */
export interface NotificationHandlers {
  /**
   * A head may have become claimable (`payload`: the notification's, '' from
   * the triggers); also called once after each (re)connect, with no payload,
   * as is `onSuspectDue`.
   */
  onWake: (payload?: string) => void;
  /** A suspect (quarantined) head became claimable: the SuspectRunner should ask at once. */
  onSuspectDue?: () => void;
  /** Cancellation of running action `actionId` was requested (the holder should look at once). */
  onCancelRequested?: (actionId: string) => void;
}

/**
 * Holds one dedicated connection that LISTENs on {@link ACTIONS_READY_CHANNEL}
 * and {@link ACTIONS_CANCEL_CHANNEL}: calls `onWake` for every wake-up
 * notification, and once after each (re)connect (notifications sent while
 * disconnected are lost; the poll and the heartbeat are the safety nets),
 * `onSuspectDue` for each wake-up with the payload {@link SUSPECT_DUE_PAYLOAD}, and
 * `onCancelRequested` with the action id of each cancel notification.
 * Reconnects with capped exponential backoff. Listens on the WakeUpPlan's URL
 * (LISTEN_DATABASE_URL, else DATABASE_URL); does nothing when the plan has none
 * (behind a transaction pooler: the worker polls briefly, and a cancel reaches
 * the holder by its heartbeat).
 */
@Injectable()
export class NotificationListener {
  private readonly logger = new Logger(NotificationListener.name);
  private client: Client | null = null;
  /** The statements of `client`, one at a time: the only way to send one on it. */
  private serial: SerialSession | null = null;
  private stopped = true;
  private retryTimer: NodeJS.Timeout | null = null;
  private attempt = 0;
  /** Whether the LISTEN connection is up. */
  connected = false;

  constructor(@Inject(WAKE_UP_PLAN) private readonly plan: WakeUpPlan) {}

  /**
   * The LISTEN connection's statements while it is up, for those that belong
   * to its session (WakeLeadership's lock), else null. One object per
   * connection: a new one after a reconnect. The Client itself is never
   * handed out, so its statements cannot overlap.
   */
  get session(): SerialSession | null {
    return this.connected ? this.serial : null;
  }

  /** Starts listening; see {@link NotificationHandlers}. */
  start(handlers: NotificationHandlers): void {
    if (this.plan.listenUrl === null) return;
    this.stopped = false;
    void this.connect(handlers);
  }

  /**
   * Stops listening and closes the connection, waiting at most
   * LISTEN_STOP_TIMEOUT_MS: an unreachable database must not hold up a shutdown.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    this.serial = null;
    this.connected = false;
    if (!client) return;
    await shutdownStep('worker: LISTEN connection closing', client.end(), LISTEN_STOP_TIMEOUT_MS);
    destroySocket(client);
  }

  private async connect(handlers: NotificationHandlers): Promise<void> {
    if (this.stopped || this.plan.listenUrl === null) return;
    const { onWake, onSuspectDue, onCancelRequested } = handlers;
    const client = dedicatedClient(this.plan.listenUrl, 'listen', CONNECT_TIMEOUT_MS);
    client.on('notification', (message) => {
      if (message.channel === ACTIONS_CANCEL_CHANNEL) onCancelRequested?.(message.payload ?? '');
      else if (message.payload === SUSPECT_DUE_PAYLOAD && onSuspectDue) onSuspectDue();
      else onWake(message.payload ?? '');
    });
    const lost = (reason: string) => {
      if (this.client !== client) return;
      this.client = null;
      this.serial = null;
      this.connected = false;
      client.end().catch(() => undefined);
      this.scheduleReconnect(handlers, reason);
    };
    client.on('error', (err) => lost(err.message));
    client.on('end', () => lost('connection ended'));
    this.client = client;
    const serial = new SerialSession(client);
    this.serial = serial;
    try {
      await client.connect();
      await serial.query({ text: `LISTEN ${ACTIONS_READY_CHANNEL}; LISTEN ${ACTIONS_CANCEL_CHANNEL}` });
      if (this.stopped || this.client !== client) {
        await client.end().catch(() => undefined);
        return;
      }
      if (this.attempt > 0) this.logger.log('LISTEN connection restored');
      this.attempt = 0;
      this.connected = true;
      onWake();
      // A suspect made claimable while disconnected would otherwise wait for the poll.
      onSuspectDue?.();
    } catch (error) {
      lost((error as Error).message);
    }
  }

  private scheduleReconnect(handlers: NotificationHandlers, reason: string): void {
    if (this.stopped) return;
    const delay = Math.min(RECONNECT_CAP_MS, RECONNECT_BASE_MS * 2 ** this.attempt++);
    this.logger.warn(`LISTEN connection lost (${reason}); reconnecting in ${delay} ms`);
    this.retryTimer = setTimeout(() => void this.connect(handlers), delay);
  }
}
