import { enqueueLockIdProblem } from '../actions/dto/lock-id.validator';
import { groupKeyProblem } from '../actions/dto/group-key.validator';
import { RecurringActionOptions } from '../handlers/recurring-action-options.interface';
import { MAX_CATCH_UP_LIMIT, nextTick, parseCron } from './schedule-plan';
import { DEFAULT_CATCH_UP_LIMIT, DEFAULT_MISFIRE_GRACE_MS } from './schedule-defaults';

/** Longest schedule name and action type (the CHECK constraints of 036 and 001). */
const MAX_NAME_LENGTH = 200;
/** Longest misfire grace: a day (action_schedules_misfire_grace_range). */
const MAX_MISFIRE_GRACE_MS = 86_400_000;

/**
 * Why `timeZone` is not an IANA time zone name, or null when it is. Checked by
 * the platform's own zone database (Intl), which refuses luxon's aliases
 * `local` and `system` and bare offsets: a schedule never runs in whatever
 * zone its server happens to have (docs/operator-controls.md).
 */
export function timeZoneProblem(timeZone: unknown): string | null {
  const problem = `timeZone ${JSON.stringify(timeZone)} must be an IANA time zone name such as Europe/Paris or UTC (no implicit server zone)`;
  if (typeof timeZone !== 'string' || timeZone.length === 0) return problem;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return null;
  } catch {
    return problem;
  }
}

/** A checked schedule, in the parameter order of INSERT_SCHEDULE_SQL (without the first tick). */
export interface ScheduleParams {
  name: string;
  cron: string;
  timeZone: string;
  type: string;
  payload: Record<string, unknown>;
  lockId: string | null;
  groupKey: string | null;
  maxAttempts: number | null;
  catchUp: 'skip' | 'fill';
  catchUpLimit: number;
  misfireGraceMs: number;
}

/**
 * Checks a schedule and fills its defaults.
 * @returns the problems (each naming its field) or the parameters.
 */
export function checkSchedule(input: RecurringActionOptions & { type: string }): { problems: string[] } | { params: ScheduleParams } {
  const problems: string[] = [];
  const text = (v: unknown) => typeof v === 'string' && v.length >= 1 && v.length <= MAX_NAME_LENGTH && !v.includes('\u0000');
  if (!text(input.name)) problems.push(`name must be 1..${MAX_NAME_LENGTH} characters without NUL`);
  if (!text(input.type)) problems.push(`type must be 1..${MAX_NAME_LENGTH} characters without NUL`);
  const zoneProblem = timeZoneProblem(input.timeZone);
  if (zoneProblem) problems.push(zoneProblem);
  else {
    let parsed: ReturnType<typeof parseCron> | null = null;
    try {
      parsed = parseCron(input.cron, input.timeZone);
    } catch (error) {
      problems.push(`cron "${input.cron}" in timeZone "${input.timeZone}" is invalid: ${(error as Error).message}`);
    }
    // A valid expression may name no date at all (30 February): the cron package then throws from its next-date search
    // (about 50 ms of searching 8 years, once per create), which would otherwise become a 500.
    if (parsed) {
      try {
        nextTick(parsed, new Date());
      } catch {
        problems.push(`cron "${input.cron}" in timeZone "${input.timeZone}" never fires: no date matches it in the next 8 years`);
      }
    }
  }
  if (input.lockId !== undefined && input.lockId !== null) {
    const problem = enqueueLockIdProblem(input.lockId);
    if (problem) problems.push(`lockId ${problem}`);
  }
  if (input.groupKey !== undefined && input.groupKey !== null) {
    const problem = groupKeyProblem(input.groupKey);
    if (problem) problems.push(`groupKey ${problem}`);
    if (input.lockId !== undefined && input.lockId !== null) problems.push('give lockId or groupKey, not both');
  }
  const payload = input.payload ?? {};
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) problems.push('payload must be a JSON object');
  const catchUp = input.catchUp ?? 'skip';
  if (catchUp !== 'skip' && catchUp !== 'fill') problems.push('catchUp must be skip or fill');
  const catchUpLimit = input.catchUpLimit ?? DEFAULT_CATCH_UP_LIMIT;
  if (!Number.isInteger(catchUpLimit) || catchUpLimit < 0 || catchUpLimit > MAX_CATCH_UP_LIMIT)
    problems.push(`catchUpLimit must be an integer 0..${MAX_CATCH_UP_LIMIT}`);
  const misfireGraceMs = input.misfireGraceMs ?? DEFAULT_MISFIRE_GRACE_MS;
  if (!Number.isInteger(misfireGraceMs) || misfireGraceMs < 0 || misfireGraceMs > MAX_MISFIRE_GRACE_MS) {
    problems.push(`misfireGraceMs must be an integer 0..${MAX_MISFIRE_GRACE_MS}`);
  }
  if (problems.length > 0) return { problems };
  return {
    params: {
      name: input.name,
      cron: input.cron,
      timeZone: input.timeZone,
      type: input.type,
      payload,
      lockId: input.lockId === undefined || input.lockId === null ? null : BigInt(input.lockId).toString(),
      groupKey: input.groupKey ?? null,
      maxAttempts: input.maxAttempts ?? null,
      catchUp,
      catchUpLimit,
      misfireGraceMs,
    },
  };
}

/** The values of INSERT_SCHEDULE_SQL / UPSERT_CODE_SCHEDULE_SQL: the first tick is the first after `now` (database clock). */
export function scheduleValues(p: ScheduleParams, source: 'code' | 'api', now: Date): unknown[] {
  const first = nextTick(parseCron(p.cron, p.timeZone), now);
  return [
    p.name,
    p.cron,
    p.timeZone,
    p.type,
    JSON.stringify(p.payload),
    p.lockId,
    p.groupKey,
    p.maxAttempts,
    p.catchUp,
    p.catchUpLimit,
    p.misfireGraceMs,
    source,
    first,
  ];
}
