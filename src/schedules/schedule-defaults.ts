/** A tick at most this late is on time: a stalled or restarting instance (seconds) must not lose ticks. */
export const DEFAULT_MISFIRE_GRACE_MS = 10_000;

/** `fill` without a limit catches up one tick: what a "run once after downtime" job wants. */
export const DEFAULT_CATCH_UP_LIMIT = 1;

/** How often an instance asks for due schedules at most (ms): it wakes sooner when a tick is nearer. */
export const SCHEDULE_POLL_INTERVAL_MS = 500;

/** Schedules one instance handles per round, so a round stays short; the next round follows at once. */
export const SCHEDULES_PER_ROUND = 50;
