import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { IsGroupKey, MAX_GROUP_KEY_BYTES } from '../../actions/dto/group-key.validator';
import { IsLockId, toLockIdString } from '../../actions/dto/lock-id.validator';
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
 * `type` takes `type`; `group` takes `lockId` or `groupKey` (one of them).
 */
export class CreatePauseDto {
  @ApiProperty({ enum: PAUSE_SCOPES, example: 'group', description: 'queue: everything; type: one action type; group: one group' })
  @IsIn(PAUSE_SCOPES, { message: `scope must be one of ${PAUSE_SCOPES.join(', ')}` })
  scope: PauseScope;

  @ApiPropertyOptional({ example: 'invoice.send', pattern: ACTION_TYPE_PATTERN.source, description: 'The action type (scope type only)' })
  @IsOptional()
  @IsString()
  @Matches(ACTION_TYPE_PATTERN, { message: 'type must be 1..200 characters of letters, digits, ".", "_", "-", ":"' })
  type?: string;

  @ApiPropertyOptional({
    oneOf: [{ type: 'string', pattern: '^-?\\d{1,19}$' }, { type: 'integer' }],
    example: '26',
    description: "The group's lock id: decimal string (signed 64-bit) or safe integer (scope group; or give groupKey)",
  })
  @IsOptional()
  @Transform(toLockIdString)
  @IsLockId()
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

  @ApiPropertyOptional({ example: 'payments API down', maxLength: MAX_PAUSE_REASON_LENGTH, description: 'Why, shown in GET /pauses' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_PAUSE_REASON_LENGTH)
  @Matches(/^[^\u0000]*$/, { message: 'reason must not contain the NUL character' })
  reason?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAUSE_FOR_MS,
    example: 60000,
    description: 'Pause for this many ms, then resume by itself; absent: until resumed',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'forMs must be an integer' })
  @Min(1)
  @Max(MAX_PAUSE_FOR_MS)
  forMs?: number;
}
