import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { OpaqueJson } from '../../http/opaque-json';
import { ACTION_TYPE_PATTERN, FAILURE_POLICIES, FailurePolicy } from '../../vocabulary';
import { validActionOrUndefined } from './create-action.fast-path';
import { IsGroupKey, MAX_GROUP_KEY_BYTES } from './group-key.validator';
import { IsLockId, toLockIdString } from './lock-id.validator';
import { IsRunAt, RUN_AT_REGEX } from './run-at.validator';
import { TENANT_PATTERN, TENANT_RULE } from './tenant.validator';
import type { EnqueueInput } from '../enqueue-input.interface';
import type { Describes } from './describes';

/** Body of `POST /actions` and each item of a batch. */
export class CreateActionDto implements Describes<EnqueueInput, CreateActionDto> {
  /** Handler name; a handler must be registered for it. */
  @ApiProperty({ example: 'instance.create', pattern: ACTION_TYPE_PATTERN.source, description: 'Handler name; a handler must be registered for it' })
  @IsString()
  @Matches(ACTION_TYPE_PATTERN, { message: 'type must be 1..200 characters of letters, digits, ".", "_", "-", ":"' })
  type: string;

  /** Group key: decimal string or safe integer; null or absent = no group. Canonical decimal string after validation. */
  @ApiPropertyOptional({
    oneOf: [{ type: 'string', pattern: '^-?\\d{1,19}$' }, { type: 'integer' }],
    nullable: true,
    example: '26',
    description:
      'Group key: decimal string (signed 64-bit) or safe integer; null = no group. The lowest 2^48 values ' +
      '(up to -9223090561878065153) are reserved for string group keys (see groupKey). Give lockId or groupKey, not both.',
  })
  @IsOptional()
  @Transform(toLockIdString)
  @IsLockId(undefined, true)
  lockId?: string | null;

  /**
   * String group key (a UUID, `tenant:42`, an SQS MessageGroupId): 1..255 bytes of UTF-8, no NUL, compared byte
   * for byte. The database gives each distinct key a group of its own. Give lockId or groupKey, not both.
   */
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    minLength: 1,
    example: 'tenant:42',
    description:
      `String group key: 1..${MAX_GROUP_KEY_BYTES} bytes of UTF-8, no NUL character, compared byte for byte (case-sensitive, ` +
      'no Unicode normalisation). The database interns each distinct key under a lock id of its own, so two different keys ' +
      'never share a group. Give groupKey or lockId, not both; null = no group.',
  })
  @IsOptional()
  @IsGroupKey()
  groupKey?: string | null;

  /** JSON object handed to the handler. Default {}. */
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { instanceId: 26 },
    description: 'JSON object handed to the handler; default {}; at most MAX_PAYLOAD_BYTES serialized',
  })
  @IsOptional()
  // The object as it was parsed: class-transformer would rebuild it and drop
  // keys named like Object.prototype members (`toString`, `valueOf`, ...).
  @Transform(({ obj }: { obj: { payload?: unknown } }) => obj.payload, { toClassOnly: true })
  // Never walked by the validation pipe (a payload may hold 200 000 keys): its checks are the JSON body guard's and the service's.
  @OpaqueJson()
  @IsObject({ message: 'payload must be a JSON object' })
  payload?: Record<string, unknown>;

  /** Not claimable before this time: ISO 8601 with `Z` or a UTC offset (never server-local time). Default now. */
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    pattern: RUN_AT_REGEX.source,
    example: '2030-01-01T09:00:00Z',
    description:
      'Not claimable before this instant; default now. ISO 8601 date and time with `Z` or a UTC offset ' +
      '(`2030-01-01T09:00:00Z`, `2030-01-01T09:00:00+09:00`), between 1970 and 9999. A value without an offset ' +
      '(`2030-01-01T09:00:00`) or a date alone (`2030-01-01`) is refused with 400: its instant would depend on the server time zone.',
  })
  @IsOptional()
  // A string, not epoch ms; a real calendar date ("2020-02-30" is refused, not rolled over); Z or an offset required.
  @IsRunAt()
  runAt?: string;

  /** Executions allowed before the action fails, 1..100. Default DEFAULT_MAX_ATTEMPTS. */
  @ApiPropertyOptional({ minimum: 1, maximum: 100, example: 5, description: 'Default DEFAULT_MAX_ATTEMPTS' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  maxAttempts?: number;

  /** What a final failure does to the group. Default block. */
  @ApiPropertyOptional({ enum: FAILURE_POLICIES, default: 'block' })
  @IsOptional()
  @IsIn(FAILURE_POLICIES)
  onFailure?: FailurePolicy;

  /**
   * Enqueue at most once per key: a repeat returns the existing action with 200.
   * The key is remembered at least IDEMPOTENCY_WINDOW_DAYS after the first enqueue, whatever RETENTION_DAYS says.
   */
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    example: 'create-26',
    description:
      'A repeat returns the existing action with 200 (409 if it names another type or lockId). The key is remembered for at least ' +
      'IDEMPOTENCY_WINDOW_DAYS after the first enqueue, however short RETENTION_DAYS is; after that it may be reused once retention has purged the action.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  // PostgreSQL text cannot hold NUL; refuse it here rather than fail in the database.
  @Matches(/^[^\u0000]*$/, { message: 'idempotencyKey must not contain the NUL character' })
  idempotencyKey?: string;

  /**
   * The tenant the action belongs to (docs/tenants.md); absent or null = the default tenant. A group holds the work of
   * one tenant at a time: an action for a group that holds another tenant's work is refused with 409.
   */
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    pattern: TENANT_PATTERN.source,
    maxLength: 128,
    example: 'acme',
    description:
      'The tenant the action belongs to (docs/tenants.md): 1..128 characters of letters, digits, ".", "_", ":", "@", "-", starting with a ' +
      'letter or a digit. Absent or null = the tenant "default". A group holds the work of one tenant at a time: an action for a group that ' +
      "holds another tenant's pending or running work is refused with 409 naming both tenants.",
  })
  @IsOptional()
  @IsString()
  @Matches(TENANT_PATTERN, { message: `tenant ${TENANT_RULE}` })
  tenant?: string | null;

  /**
   * The validation pipe's fast path (QueueValidationPipe): the instance the
   * full pipe would return for a valid action, or undefined when it breaks any
   * rule (the full pipe then names the field). See validActionOrUndefined.
   * @param value the parsed JSON body.
   */
  static validOrUndefined(value: unknown): CreateActionDto | undefined {
    return validActionOrUndefined(value, CreateActionDto);
  }
}
