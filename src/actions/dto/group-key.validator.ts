import { ValidationArguments, ValidationOptions, registerDecorator } from 'class-validator';

/**
 * Longest string group key, in bytes of UTF-8: the `action_group_keys_group_key_length`
 * constraint of src/database/sql/017-group-keys.up.sql. 255 holds a UUID, an SQS
 * MessageGroupId (128 characters) or a `tenant:…:order:…` path with room to spare.
 */
export const MAX_GROUP_KEY_BYTES = 255;

/**
 * Largest lock id the database interns string group keys under: the lowest
 * 2^48 values of bigint, [-2^63, -2^63 + 2^48), are reserved for them (see
 * 017-group-keys.up.sql), so an integer lock id there is refused on enqueue.
 */
export const MAX_RESERVED_LOCK_ID = -(2n ** 63n) + 2n ** 48n - 1n;

/** A lone UTF-16 surrogate: PostgreSQL would store it as U+FFFD, so two different keys would become one. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Why `value` is not a valid string group key, as the end of a sentence that
 * starts with the field name; null when it is one: a non-empty string of at
 * most {@link MAX_GROUP_KEY_BYTES} bytes of UTF-8, without NUL (PostgreSQL
 * text cannot hold it) or a lone surrogate. Keys compare byte for byte.
 */
export function groupKeyProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string';
  if (value.length === 0) return 'must not be empty';
  if (value.includes('\u0000')) return 'must not contain the NUL character';
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode text (it holds a lone surrogate)';
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_GROUP_KEY_BYTES) return `is ${bytes} bytes of UTF-8; the limit is ${MAX_GROUP_KEY_BYTES}`;
  return null;
}

/** Why an integer lock id (canonical decimal string) cannot be enqueued under, or null: the interned range is refused. */
export function reservedLockIdProblem(lockId: string): string | null {
  return BigInt(lockId) <= MAX_RESERVED_LOCK_ID
    ? `is reserved for string group keys (lock ids up to ${MAX_RESERVED_LOCK_ID}); use groupKey, or another lockId`
    : null;
}

/** The message when both names of a group are given: one or the other, never both. */
export const BOTH_GROUP_NAMES = 'groupKey and lockId: give one or the other, not both';

/**
 * Validates a string group key with {@link groupKeyProblem}, and that the
 * object does not also carry a `lockId`. The message names the property.
 */
export function IsGroupKey(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isGroupKey',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown, args: ValidationArguments) => {
          if (value === null || value === undefined) return true;
          const lockId = (args.object as { lockId?: unknown }).lockId;
          return groupKeyProblem(value) === null && (lockId === undefined || lockId === null);
        },
        defaultMessage: (args: ValidationArguments) => {
          const problem = groupKeyProblem(args.value);
          return problem ? `${args.property} ${problem}` : BOTH_GROUP_NAMES;
        },
      },
    });
  };
}
