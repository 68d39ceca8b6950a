import 'reflect-metadata';

/** Metadata key: the properties of a DTO class whose values are opaque JSON. */
const OPAQUE_JSON = 'actions:opaque-json';
/** Metadata key: the properties of a DTO class holding items (an array or one object) of another DTO class with opaque JSON. */
const OPAQUE_JSON_ITEMS = 'actions:opaque-json-items';

type Class = abstract new (...args: never[]) => unknown;

/**
 * Marks a DTO property whose value is JSON the DTO does not look into (an
 * action's payload): the validation pipe keeps it out of class-transformer
 * and class-validator, which would walk every key of it (in time growing with
 * the square of the key count in class-transformer 0.5), and puts the very
 * object back after validation. Validators on the property see a stand-in
 * of the same kind (`{}` for an object, `[]` for an array, the value itself
 * otherwise), so `@IsObject()` still decides as it would.
 */
export function OpaqueJson(): PropertyDecorator {
  return (target, property) => {
    const names: string[] = Reflect.getMetadata(OPAQUE_JSON, target.constructor) ?? [];
    Reflect.defineMetadata(OPAQUE_JSON, [...names, String(property)], target.constructor);
  };
}

/** Marks a DTO property whose items (array elements, or the value itself) are of `type`, a class with {@link OpaqueJson} properties. */
export function HoldsOpaqueJson(type: () => Class): PropertyDecorator {
  return (target, property) => {
    const items: Record<string, () => Class> = Reflect.getMetadata(OPAQUE_JSON_ITEMS, target.constructor) ?? {};
    Reflect.defineMetadata(OPAQUE_JSON_ITEMS, { ...items, [String(property)]: type }, target.constructor);
  };
}

/** Puts the detached opaque values back into the transformed instance. */
export type Reattach = (instance: unknown) => void;

const standIn = (value: unknown): unknown => (value === null || typeof value !== 'object' ? value : Array.isArray(value) ? [] : {});
const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A copy of `value` (shallow, only along the paths that lead to opaque JSON)
 * with every {@link OpaqueJson} value of `type` replaced by its stand-in, and
 * the function that puts the originals back into the instance built from the
 * copy. Costs one step per DTO object, never a walk of the opaque values.
 *
 * @param value the plain body (whatever the client sent).
 * @param type the DTO class it is validated against.
 */
export function detachOpaqueJson(value: unknown, type: unknown): { value: unknown; reattach: Reattach } {
  const none = { value, reattach: () => undefined };
  if (!isRecord(value) || typeof type !== 'function') return none;
  const opaque: string[] = Reflect.getMetadata(OPAQUE_JSON, type) ?? [];
  const nested: Record<string, () => Class> = Reflect.getMetadata(OPAQUE_JSON_ITEMS, type) ?? {};
  if (opaque.length === 0 && Object.keys(nested).length === 0) return none;
  const copy: Record<string, unknown> = { ...value };
  const steps: Reattach[] = [];
  for (const name of opaque) {
    if (!Object.hasOwn(value, name)) continue;
    const original = value[name];
    copy[name] = standIn(original);
    if (copy[name] !== original) steps.push((instance) => isRecord(instance) && (instance[name] = original));
  }
  for (const [name, itemType] of Object.entries(nested)) {
    const items = value[name];
    if (Array.isArray(items)) {
      const detached = items.map((item) => detachOpaqueJson(item, itemType()));
      copy[name] = detached.map((d) => d.value);
      steps.push((instance) => {
        const built = isRecord(instance) ? instance[name] : undefined;
        if (Array.isArray(built)) detached.forEach((d, i) => d.reattach(built[i]));
      });
    } else if (isRecord(items)) {
      const detached = detachOpaqueJson(items, itemType());
      copy[name] = detached.value;
      steps.push((instance) => isRecord(instance) && detached.reattach(instance[name]));
    }
  }
  return { value: copy, reattach: (instance) => steps.forEach((step) => step(instance)) };
}
