import { CronTime } from 'cron';

/** How a schedule treats ticks it missed (its instances were down or stalled). */
export interface CatchUpPolicy {
  /** `skip`: ticks older than `misfireGraceMs` are dropped. `fill`: the newest `limit` of them are enqueued. */
  catchUp: 'skip' | 'fill';
  /** With `fill`: at most this many late ticks (0..1000). */
  limit: number;
  /** A tick at most this old (ms, database clock) is on time, merely late, and always enqueued. */
  misfireGraceMs: number;
}

/** What to do with a schedule's due ticks. */
export interface TickPlan {
  /** Ticks to enqueue, oldest first. */
  enqueue: Date[];
  /** Due ticks dropped by the policy (a lower bound when more than {@link MAX_TICKS_SCANNED} were due). */
  skipped: number;
  /** The new cursor: the first tick after `now`. */
  next: Date;
}

/**
 * Ticks walked at most per plan before it jumps to `now - grace`: computing a
 * tick costs the `cron` package about 0.1 to 1 ms (luxon time-zone math;
 * measured on the project's shared 2-core machine), and a per-second schedule
 * down for a day has 86 400 due ticks, so an unbounded walk would block the
 * event loop (G10). Older ticks past the bound are dropped uncounted (`skipped`
 * is then a lower bound) and `fill` takes none of them: fill catches up only
 * the ticks of the last {@link MAX_TICKS_SCANNED} of a downtime.
 */
export const MAX_TICKS_SCANNED = 200;

/** Largest `fill` limit: never more than the walk can hold. */
export const MAX_CATCH_UP_LIMIT = 100;

/**
 * Parses a cron expression (5 fields, or 6 with seconds first) in an IANA time zone.
 * @throws Error naming the problem (unknown field value, invalid time zone).
 */
export function parseCron(cron: string, timeZone: string): CronTime {
  return new CronTime(cron, timeZone);
}

/** The first tick of `cron` strictly after `after`. */
export function nextTick(cron: CronTime, after: Date): Date {
  return cron.getNextDateFrom(after, cron.timeZone).toJSDate();
}

/**
 * Decides which due ticks to enqueue: every tick in [cursor, now] that is at
 * most `misfireGraceMs` old, plus under `fill` the newest `limit` older ones;
 * the rest are skipped. Pure: the caller passes the database's `now`.
 * @param cron the parsed schedule.
 * @param cursor the first tick not yet handled (inclusive).
 * @param now the database clock.
 */
export function planTicks(cron: CronTime, cursor: Date, now: Date, policy: CatchUpPolicy): TickPlan {
  const onTimeFrom = now.getTime() - policy.misfireGraceMs;
  const late: Date[] = [];
  const onTime: Date[] = [];
  let skipped = 0;
  let scanned = 0;
  // The cursor is a tick itself: start just before it so it is included.
  let t = nextTick(cron, new Date(cursor.getTime() - 1));
  while (t.getTime() <= now.getTime()) {
    if (++scanned > MAX_TICKS_SCANNED) {
      skipped += late.length;
      late.length = 0;
      // Jump: everything older than the grace is dropped without walking it.
      const resume = nextTick(cron, new Date(onTimeFrom - 1));
      if (resume.getTime() <= t.getTime()) break;
      t = resume;
      scanned = 0;
      continue;
    }
    if (t.getTime() >= onTimeFrom) onTime.push(t);
    else {
      late.push(t);
      const keep = policy.catchUp === 'fill' ? policy.limit : 0;
      if (late.length > keep) {
        late.shift();
        skipped++;
      }
    }
    t = nextTick(cron, t);
  }
  return { enqueue: [...late, ...onTime], skipped, next: t };
}
