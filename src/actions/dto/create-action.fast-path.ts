import { isIn, isInt, isObject, isString, length, matches, max, min } from 'class-validator';
import { ACTION_TYPE_PATTERN, FAILURE_POLICIES } from '../../vocabulary';
import { groupKeyProblem } from './group-key.validator';
import { enqueueLockIdProblem, toLockIdString } from './lock-id.validator';
import { runAtProblem } from './run-at.validator';
import { tenantProblem } from './tenant.validator';

/** The fields of an action to enqueue: the decorated properties of CreateActionDto, nothing else is accepted. */
const FIELDS = new Set(['type', 'lockId', 'groupKey', 'payload', 'runAt', 'maxAttempts', 'onFailure', 'idempotencyKey', 'tenant']);

/** The `idempotencyKey` rule of CreateActionDto: no NUL character. */
const NO_NUL = /^[^\u0000]*$/;

/** A plain JSON object as the body parser builds it (not an array, a class instance or a null-prototype object). */
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;

/** IsOptional of class-validator: null and undefined skip the other rules. */
const absent = (value: unknown): boolean => value === null || value === undefined;

/**
 * Whether `item` passes every rule of CreateActionDto, decided with the same
 * functions the decorators call (class-validator's `isString`, `matches`,
 * `isInt`, `min`, `max`, `isIn`, `isObject`, `length`, and this folder's
 * `enqueueLockIdProblem`, `groupKeyProblem`, `runAtProblem`, `tenantProblem`), applied to the
 * values class-transformer would produce (`lockId` normalised by
 * `toLockIdString` first). Anything it is not sure of (an unknown or
 * prototype key, a non-plain object) counts as a failure, so the caller falls
 * back to the full pipe, which then names the field.
 *
 * @param item one element of `actions`, or the body of `POST /actions`, as parsed from JSON.
 * @param lockId the value of `item.lockId` after `toLockIdString`.
 */
function passesEveryRule(item: Record<string, unknown>, lockId: unknown): boolean {
  for (const key in item) if (!FIELDS.has(key)) return false;
  if (!Object.hasOwn(item, 'type')) return false;
  const { type, groupKey, payload, runAt, maxAttempts, onFailure, idempotencyKey, tenant } = item;
  if (!isString(type) || !matches(type, ACTION_TYPE_PATTERN)) return false;
  if (!absent(lockId) && enqueueLockIdProblem(lockId) !== null) return false;
  if (!absent(groupKey) && (groupKeyProblem(groupKey) !== null || !absent(lockId))) return false;
  if (!absent(payload) && !isObject(payload)) return false;
  if (!absent(runAt) && runAtProblem(runAt) !== null) return false;
  if (!absent(maxAttempts) && !(isInt(maxAttempts) && min(maxAttempts, 1) && max(maxAttempts, 100))) return false;
  if (!absent(onFailure) && !isIn(onFailure, FAILURE_POLICIES as unknown as unknown[])) return false;
  if (!absent(idempotencyKey) && !(isString(idempotencyKey) && length(idempotencyKey, 1, 200) && matches(idempotencyKey, NO_NUL))) return false;
  if (!absent(tenant) && tenantProblem(tenant) !== null) return false;
  return true;
}

/**
 * Builds the instance of `dtoClass` that the validation pipe (class-transformer's
 * `plainToInstance`, then class-validator) would return for a VALID action
 * `value`, in about a microsecond instead of tens; returns undefined as soon as
 * any rule fails or the value is not a plain object with known keys only, and
 * the caller then runs the full pipe, whose 400 names the field (G8). The
 * instance has the item's own keys in their order, the same values (the
 * payload is the very object parsed, as the pipe's opaque-JSON handling keeps
 * it) and `lockId` normalised to its canonical decimal string.
 * create-action.fast-path.spec.ts checks it against the full pipe.
 *
 * @param value one action as parsed from the JSON body.
 * @param dtoClass CreateActionDto (passed in to keep this file free of the class it serves).
 */
export function validActionOrUndefined<T extends object>(value: unknown, dtoClass: new () => T): T | undefined {
  if (!isPlainObject(value)) return undefined;
  const lockId = Object.hasOwn(value, 'lockId') ? toLockIdString({ value: value.lockId }) : undefined;
  if (!passesEveryRule(value, lockId)) return undefined;
  const dto = new dtoClass() as Record<string, unknown>;
  for (const key of Object.keys(value)) dto[key] = key === 'lockId' ? lockId : value[key];
  return dto as T;
}

/**
 * {@link validActionOrUndefined} for the body of `POST /actions/batch`: an
 * object whose only key is `actions`, an array of `minItems..maxItems` valid
 * actions. Returns the batch instance, or undefined when anything would fail
 * (the full pipe then says what).
 *
 * @param value the parsed JSON body.
 * @param batchClass CreateActionsBatchDto.
 * @param itemClass CreateActionDto.
 * @param maxItems MAX_BATCH_ITEMS (the minimum is 1).
 */
export function validBatchOrUndefined<B extends { actions: T[] }, T extends object>(
  value: unknown,
  batchClass: new () => B,
  itemClass: new () => T,
  maxItems: number,
): B | undefined {
  if (!isPlainObject(value)) return undefined;
  for (const key in value) if (key !== 'actions') return undefined;
  const items = value.actions;
  if (!Array.isArray(items) || items.length < 1 || items.length > maxItems) return undefined;
  const built: T[] = new Array<T>(items.length);
  for (let i = 0; i < items.length; i++) {
    const dto = validActionOrUndefined(items[i], itemClass);
    if (dto === undefined) return undefined;
    built[i] = dto;
  }
  const batch = new batchClass();
  batch.actions = built;
  return batch;
}
