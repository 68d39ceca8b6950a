import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional } from 'class-validator';
import { IsGroupKey, MAX_GROUP_KEY_BYTES } from '../../actions/dto/group-key.validator';
import { IsLockId, toLockIdString } from '../../actions/dto/lock-id.validator';
import { TENANT_PATTERN } from '../../actions/dto/tenant.validator';
import { IsIntegerIn, IsTextMatching, IsTextOfLength } from '../../http/single-rule.validator';
import { ACTION_TYPE_PATTERN } from '../../vocabulary';
import { PAUSE_SCOPES, PauseScope } from '../pause-scope';

/**
 * Longest reason, in UTF-16 code units: at most 4 bytes of UTF-8 each, so
 * within the 1000 bytes of action_pauses_reason_length.
 */
export const MAX_PAUSE_REASON_LENGTH = 250;

/**
 * Longest timed pause through the API (ms): 7 days. An open-ended pause
 * (no forMs) is the tool for longer; a timed one is for known windows
 * (a downstream's maintenance, a rate limit's reset).
 */
export const MAX_PAUSE_FOR_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Body of `POST /pauses`: what to pause. `scope` `queue` takes nothing else;
 * `type` takes `type`; `group` takes `lockId` or `groupKey` (one of them);
 * `tenant` takes `tenant`.
 */
export class CreatePauseDto {
  @ApiProperty({ enum: PAUSE_SCOPES, example: 'group', description: 'queue: everything; type: one action type; group: one group; tenant: one tenant' })
  @IsIn(PAUSE_SCOPES, { message: `scope must be one of ${PAUSE_SCOPES.join(', ')}` })
  scope: PauseScope;

  @ApiPropertyOptional({ example: 'invoice.send', pattern: ACTION_TYPE_PATTERN.source, description: 'The action type (scope type only)' })
  @IsOptional()
  @IsTextMatching(ACTION_TYPE_PATTERN, '1..200 characters of letters, digits, ".", "_", "-", ":"')
  type?: string;

  @ApiPropertyOptional({
    oneOf: [{ type: 'string', pattern: '^-?\\d{1,19}$' }, { type: 'integer' }],
    example: '26',
    description:
      "The group's lock id: decimal string (signed 64-bit) or safe integer (scope group; or give groupKey). " +
      'The lock ids reserved for string group keys (up to -9223090561878065153) are refused: pause by groupKey.',
  })
  @IsOptional()
  @Transform(toLockIdString)
  // As POST /actions: a lock id of the range reserved for string keys names no group a client can enqueue into.
  @IsLockId(undefined, true)
  lockId?: string;

  @ApiPropertyOptional({
    type: String,
    minLength: 1,
    example: 'tenant:42',
    description: `The group's string key, 1..${MAX_GROUP_KEY_BYTES} bytes of UTF-8 (scope group; or give lockId). A key not used yet can be paused before its first action.`,
  })
  @IsOptional()
  @IsGroupKey()
  groupKey?: string;

  @ApiPropertyOptional({
    example: 'acme',
    pattern: TENANT_PATTERN.source,
    description: 'The tenant (scope tenant only; docs/tenants.md): nothing of it starts until resumed',
  })
  @IsOptional()
  @IsTextMatching(TENANT_PATTERN, 'a tenant name: 1..128 characters of letters, digits, ".", "_", ":", "@", "-", starting with a letter or a digit')
  tenant?: string;

  @ApiPropertyOptional({ example: 'payments API down', maxLength: MAX_PAUSE_REASON_LENGTH, description: 'Why, shown in GET /pauses' })
  @IsOptional()
  @IsTextOfLength(0, MAX_PAUSE_REASON_LENGTH)
  reason?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAUSE_FOR_MS,
    example: 60000,
    description: 'Pause for this many ms, then resume by itself; absent: until resumed',
  })
  @IsOptional()
  // A JSON number, as every other route's numbers: "5000" is refused, not converted.
  @IsIntegerIn(1, MAX_PAUSE_FOR_MS)
  forMs?: number;
}
