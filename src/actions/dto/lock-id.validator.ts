import { ValidationArguments, ValidationOptions, registerDecorator } from 'class-validator';
import { reservedLockIdProblem } from './group-key.validator';
import { int64TextProblem } from './int64.validator';

/** Why `value` is not a valid lock id, or null when it is (a decimal string in int64 range, or a safe integer). */
export function lockIdProblem(value: unknown): string | null {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return 'must be an integer';
    if (!Number.isSafeInteger(value)) return 'is a JSON integer beyond ±(2^53 - 1) and has lost precision; send it as a decimal string';
    return null;
  }
  // The same int64 check as every other id and cursor.
  if (typeof value === 'string') return int64TextProblem(value);
  return 'must be a decimal string or an integer';
}

/** Normalises a valid lock id to its canonical decimal string ("007" → "7"); leaves anything else for the validator. */
export const toLockIdString = ({ value }: { value: unknown }): unknown => {
  if (value === null || value === undefined) return value;
  if (lockIdProblem(value) !== null) return value;
  return BigInt(value as string | number).toString();
};

/**
 * Why `value` is not a lock id a new action may name, or null: a valid lock id
 * ({@link lockIdProblem}) outside the range reserved for string group keys.
 */
export function enqueueLockIdProblem(value: unknown): string | null {
  return lockIdProblem(value) ?? reservedLockIdProblem(BigInt(value as string | number).toString());
}

/**
 * Validates a lock id: a decimal string within the signed 64-bit range, or a
 * JSON integer within the safe range. Apply after `@Transform(toLockIdString)` (class-transformer).
 * @param forEnqueue also refuse the lock ids reserved for string group keys (a new action's lockId).
 */
export function IsLockId(options?: ValidationOptions, forEnqueue = false): PropertyDecorator {
  const problem = forEnqueue ? enqueueLockIdProblem : lockIdProblem;
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isLockId',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => value === null || problem(value) === null,
        defaultMessage: (args: ValidationArguments) => `${args.property} ${problem(args.value)}`,
      },
    });
  };
}
