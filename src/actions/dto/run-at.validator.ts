import { isISO8601, registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

/**
 * The accepted text form of `runAt`: a calendar date and a time of day with an
 * explicit UTC offset, `YYYY-MM-DDTHH:MM[:SS[.fraction]]` then `Z` or
 * `±HH:MM` (`±HHMM`). Without the offset the instant would depend on the time
 * zone of whichever server parsed it (a date-only value is even read as UTC by
 * JavaScript but as local time by PostgreSQL), so it is refused.
 */
export const RUN_AT_REGEX = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})$/;

/** Latest accepted `runAt`: the last millisecond of 9999 (the table accepts run_at < 10000-01-01). */
const RUN_AT_MAX_MS = Date.UTC(10000, 0, 1) - 1;

/**
 * Why `value` is not an acceptable `runAt`, as the end of a sentence starting
 * with the field name, or null when it is fine. Accepts a string in
 * {@link RUN_AT_REGEX} form (a real calendar date: `2020-02-30` is refused, not
 * rolled over) or a valid `Date`, in both cases between 1970 and 9999.
 */
export function runAtProblem(value: unknown): string | null {
  const example = 'e.g. 2030-01-01T09:00:00Z or 2030-01-01T09:00:00+09:00';
  let ms: number;
  if (value instanceof Date) {
    ms = value.getTime();
  } else if (typeof value === 'string') {
    if (!isISO8601(value, { strict: true, strictSeparator: true })) return `must be an ISO 8601 timestamp with Z or a UTC offset, ${example}`;
    if (!RUN_AT_REGEX.test(value)) {
      return `must be a date and time with Z or a UTC offset (${example}); without one it would depend on the server's time zone`;
    }
    ms = new Date(value).getTime();
  } else {
    return `must be an ISO 8601 timestamp string with Z or a UTC offset, ${example}`;
  }
  if (!Number.isFinite(ms) || ms < 0 || ms > RUN_AT_MAX_MS) return 'must be an ISO 8601 timestamp between 1970 and 9999';
  return null;
}

/**
 * Validates `runAt` with {@link runAtProblem}: ISO 8601 with `Z` or an offset,
 * between 1970 and 9999. The message names the property (Nest prefixes the
 * path of a batch item, e.g. `actions.3.runAt`).
 */
export function IsRunAt(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isRunAt',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => runAtProblem(value) === null,
        defaultMessage: (args: ValidationArguments) => `${args.property} ${runAtProblem(args.value)}`,
      },
    });
  };
}
