/**
 * DI token of this instance's {@link LeaseTiming}, derived once from LEASE_MS
 * by `leaseTiming` (its provider is in queue.module.ts).
 */
export const LEASE_TIMING = Symbol('actions:lease-timing');
