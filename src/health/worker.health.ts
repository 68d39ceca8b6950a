import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { QueueSettings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { WorkerService } from '../queue/worker/worker.service';
import { WorkerSlots } from '../queue/instance/worker-slots';

/** Shortest tolerated silence of the worker loop (ms), whatever the poll interval. */
export const MIN_WORKER_STALL_MS = 15_000;

/**
 * Stuck slots from which an instance reports lost capacity:
 * max(1, ceil(WORKER_CONCURRENCY × STUCK_SLOTS_MAX_PERCENT / 100)).
 */
export function stuckSlotsLimit(settings: Pick<QueueSettings, 'WORKER_CONCURRENCY' | 'STUCK_SLOTS_MAX_PERCENT'>): number {
  return Math.max(1, Math.ceil((settings.WORKER_CONCURRENCY * settings.STUCK_SLOTS_MAX_PERCENT) / 100));
}

/**
 * Health of the worker loop. Up with `disabled` when this instance runs no
 * worker (WORKER_ENABLED=false). Its details count the handlers that ignored
 * their abort signal and still run (`stuckHandlers`), the slots they hold
 * (`stuckSlots`: one per action however many of its attempts are stuck) and
 * the limit (`stuckSlotsLimit`, from STUCK_SLOTS_MAX_PERCENT), and say whether
 * the worker has fenced itself (`selfFenced`: it could not renew its leases
 * and takes no new work), and name the suspect running in this instance's one
 * suspect slot (`suspect`: `{ actionId, runningForMs }`, or null; a suspect
 * takes one slot beside other work and never makes the instance unhealthy).
 *
 * - {@link isAlive} (liveness): down when the last successful claim statement
 *   (a tick; it runs at least every WORKER_POLL_INTERVAL_MS) is older than
 *   max(3 poll intervals, 15 s), or when stuck slots reach their limit: only a
 *   restart frees them, so the orchestrator should restart the instance.
 * - {@link hasCapacity} (readiness): down when stuck slots reach their limit.
 */
@Injectable()
export class WorkerHealthIndicator {
  private readonly stuckLimit: number;

  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly worker: WorkerService,
    private readonly slots: WorkerSlots,
    @Inject(SETTINGS) private readonly settings: QueueSettings,
  ) {
    this.stuckLimit = stuckSlotsLimit(settings);
  }

  /** @param key the key of the result, e.g. `worker`. */
  isAlive<Key extends string>(key: Key): HealthIndicatorResult<Key> {
    const check = this.indicators.check(key);
    if (!this.worker.enabled) return check.up({ enabled: false });
    const maxAgeMs = Math.max(3 * this.settings.WORKER_POLL_INTERVAL_MS, MIN_WORKER_STALL_MS);
    const lastTickAgeMs = this.worker.lastClaimAt > 0 ? Date.now() - this.worker.lastClaimAt : null;
    const data = { lastTickAgeMs, maxAgeMs, ...this.slotDetails() };
    if (lastTickAgeMs === null) return check.down({ ...data, message: 'the worker loop has not claimed yet' });
    if (lastTickAgeMs > maxAgeMs) return check.down({ ...data, message: `no claim for ${lastTickAgeMs} ms` });
    const stuck = this.stuckMessage();
    return stuck ? check.down({ ...data, message: stuck }) : check.up(data);
  }

  /** @param key the key of the result, e.g. `worker`. */
  hasCapacity<Key extends string>(key: Key): HealthIndicatorResult<Key> {
    const check = this.indicators.check(key);
    if (!this.worker.enabled) return check.up({ enabled: false });
    const data = this.slotDetails();
    const stuck = this.stuckMessage();
    return stuck ? check.down({ ...data, message: stuck }) : check.up(data);
  }

  private slotDetails() {
    return {
      busySlots: this.worker.busySlots,
      stuckHandlers: this.slots.stuck,
      stuckSlots: this.slots.stuckSlots,
      stuckSlotsLimit: this.stuckLimit,
      selfFenced: this.slots.isPaused('fenced'),
      suspect: this.worker.runningSuspect,
    };
  }

  /** Why capacity is lost, or null. */
  private stuckMessage(): string | null {
    const stuck = this.slots.stuckSlots;
    if (stuck < this.stuckLimit) return null;
    return `${stuck} of ${this.settings.WORKER_CONCURRENCY} slots are held by handlers that ignored their abort signal (limit ${this.stuckLimit}, STUCK_SLOTS_MAX_PERCENT=${this.settings.STUCK_SLOTS_MAX_PERCENT}); restart the instance to free them`;
  }
}
