import { ValidationArguments, ValidationOptions, registerDecorator } from 'class-validator';

/** Smallest signed 64-bit integer (PostgreSQL bigint). */
export const INT64_MIN = -(2n ** 63n);

/** Largest signed 64-bit integer (PostgreSQL bigint). */
export const INT64_MAX = 2n ** 63n - 1n;

/**
 * Why `value` is not a decimal integer string that PostgreSQL's bigint can
 * hold and that is at least `min`, as the end of a sentence starting with the
 * field name; null when it is fine. Every id, cursor and lock id of a query or
 * path goes through this, so a value beyond int64 is a 400 naming the field,
 * never a 500 from the database ("out of range for type bigint").
 *
 * @param value the raw text (query and path values are strings).
 * @param min the smallest accepted value: 1n for an id, 0n for an id cursor, INT64_MIN for a lock id.
 */
export function int64TextProblem(value: unknown, min: bigint = INT64_MIN): string | null {
  const signed = min < 0n;
  if (typeof value !== 'string' || !(signed ? /^-?\d{1,19}$/ : /^\d{1,19}$/).test(value)) {
    return min === 1n
      ? 'must be a positive integer, e.g. "17"'
      : min === 0n
        ? 'must be a non-negative integer, e.g. "17"'
        : 'must be a decimal integer string, e.g. "26"';
  }
  const big = BigInt(value);
  if (big < INT64_MIN || big > INT64_MAX) return 'must fit in a signed 64-bit integer';
  if (big < min) return min === 1n ? 'must be a positive integer, e.g. "17"' : `must be at least ${min}`;
  return null;
}

/**
 * Validates a decimal integer string with {@link int64TextProblem}: within the
 * signed 64-bit range and at least `min`. The message names the property.
 */
export function IsInt64Text(min: bigint, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isInt64Text',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => int64TextProblem(value, min) === null,
        defaultMessage: (args: ValidationArguments) => `${args.property} ${int64TextProblem(args.value, min)}`,
      },
    });
  };
}
