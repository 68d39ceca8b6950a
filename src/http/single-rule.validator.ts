import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

/**
 * A property check that answers one message per field, whatever is wrong
 * (absent, wrong JSON type, out of range): `maxDepth must be an integer from
 * 1 to 1000000000`, never the three messages of `@IsInt() @Min() @Max()`
 * stacked. The operator routes use it for their required scalars.
 * @param name the constraint's name (the key in class-validator's errors).
 * @param accepts whether a value is valid.
 * @param expectation what a valid value is, as a noun phrase: `an integer from 1 to 100`.
 */
export function SingleRule(name: string, accepts: (value: unknown) => boolean, expectation: string, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => accepts(value),
        defaultMessage: (args: ValidationArguments) =>
          args.value === undefined || args.value === null ? `${args.property} is required: ${expectation}` : `${args.property} must be ${expectation}`,
      },
    });
  };
}

/** An integer (a JSON number, never a numeric string) from `min` to `max` inclusive, in one message. */
export function IsIntegerIn(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return SingleRule('isIntegerIn', (v) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max, `an integer from ${min} to ${max}`, options);
}

/** A finite number (a JSON number, never a numeric string) from `min` to `max` inclusive, in one message. */
export function IsNumberIn(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return SingleRule('isNumberIn', (v) => typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max, `a number from ${min} to ${max}`, options);
}

/** A string of `min`..`max` UTF-16 code units without the NUL character (PostgreSQL text cannot hold it), in one message. */
export function IsTextOfLength(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return SingleRule(
    'isTextOfLength',
    (v) => typeof v === 'string' && v.length >= min && v.length <= max && !v.includes('\u0000'),
    `a string of ${min}..${max} characters without the NUL character`,
    options,
  );
}

/** A string matching `pattern`, in one message (`expectation` says what matches, as a noun phrase). */
export function IsTextMatching(pattern: RegExp, expectation: string, options?: ValidationOptions): PropertyDecorator {
  return SingleRule('isTextMatching', (v) => typeof v === 'string' && pattern.test(v), expectation, options);
}

/** A JSON object (not an array, not null), in one message; for nested DTOs that must be present. */
export function IsRequiredObject(expectation: string, options?: ValidationOptions): PropertyDecorator {
  return SingleRule('isRequiredObject', (v) => typeof v === 'object' && v !== null && !Array.isArray(v), expectation, options);
}
