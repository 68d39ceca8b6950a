import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { WorkerService } from '../queue/worker.service';
import { WorkerSlots } from '../queue/worker-slots';

/** Shortest tolerated silence of the worker loop (ms), whatever the poll interval. */
export const MIN_WORKER_STALL_MS = 15_000;

/**
 * Liveness of the worker loop: up while its last successful claim statement
 * (a tick; it runs at least every WORKER_POLL_INTERVAL_MS) is recent, i.e.
 * younger than max(3 poll intervals, 15 s). Up with `disabled` when this
 * instance runs no worker (WORKER_ENABLED=false). Its details count the
 * handlers that ignored their abort signal and still hold a slot
 * (`stuckHandlers`), and say whether the worker has fenced itself
 * (`selfFenced`: it could not renew its leases and takes no new work).
 */
@Injectable()
export class WorkerHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly worker: WorkerService,
    private readonly slots: WorkerSlots,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /** @param key the key of the result, e.g. `worker`. */
  isAlive<Key extends string>(key: Key): HealthIndicatorResult<Key> {
    const check = this.indicators.check(key);
    if (!this.worker.enabled) return check.up({ enabled: false });
    const maxAgeMs = Math.max(3 * this.settings.WORKER_POLL_INTERVAL_MS, MIN_WORKER_STALL_MS);
    const lastTickAgeMs = this.worker.lastClaimAt > 0 ? Date.now() - this.worker.lastClaimAt : null;
    const data = { lastTickAgeMs, maxAgeMs, busySlots: this.worker.busySlots, stuckHandlers: this.slots.stuck, selfFenced: this.slots.isPaused('fenced') };
    if (lastTickAgeMs === null) return check.down({ ...data, message: 'the worker loop has not claimed yet' });
    return lastTickAgeMs <= maxAgeMs ? check.up(data) : check.down({ ...data, message: `no claim for ${lastTickAgeMs} ms` });
  }
}
