import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsObject, IsOptional } from 'class-validator';
import { IsGroupKey } from '../../actions/dto/group-key.validator';
import { IsLockId, toLockIdString } from '../../actions/dto/lock-id.validator';
import { OpaqueJson } from '../../http/opaque-json';
import { IsIntegerIn, IsTextMatching, IsTextOfLength, SingleRule } from '../../http/single-rule.validator';
import { ACTION_TYPE_PATTERN } from '../../vocabulary';
import { MAX_CATCH_UP_LIMIT } from '../schedule-plan';
import { timeZoneProblem } from '../schedule-input';

/** Body of `POST /schedules`. */
export class CreateScheduleDto {
  @ApiProperty({ example: 'nightly-report', minLength: 1, maxLength: 200 })
  @IsTextOfLength(1, 200)
  name: string;

  @ApiProperty({ example: '0 30 2 * * *', description: 'Cron: 5 fields, or 6 with seconds first; it must have a next run (not "0 0 30 2 *")' })
  @IsTextOfLength(1, 200)
  cron: string;

  @ApiProperty({
    example: 'Europe/Paris',
    maxLength: 100,
    description: 'IANA time zone the expression is read in (required): no implicit server zone, so "local" and bare offsets are refused',
  })
  @SingleRule(
    'isIanaTimeZone',
    (v) => typeof v === 'string' && v.length <= 100 && timeZoneProblem(v) === null,
    'an IANA time zone name such as Europe/Paris or UTC',
  )
  timeZone: string;

  @ApiProperty({
    example: 'report.build',
    pattern: ACTION_TYPE_PATTERN.source,
    description: 'Action type of each enqueued action; a handler must be registered for it',
  })
  @IsTextMatching(ACTION_TYPE_PATTERN, '1..200 characters of letters, digits, ".", "_", "-", ":"')
  type: string;

  @ApiPropertyOptional({ example: { scope: 'all' }, type: 'object', additionalProperties: true })
  @IsOptional()
  @Transform(({ obj }: { obj: { payload?: unknown } }) => obj.payload, { toClassOnly: true })
  // Never walked by the validation pipe, as an action's payload (create-action.dto.ts).
  @OpaqueJson()
  @IsObject({ message: 'payload must be a JSON object' })
  payload?: Record<string, unknown>;

  @ApiPropertyOptional({ example: '26', type: String, description: 'Enqueue into this integer group' })
  @IsOptional()
  @Transform(toLockIdString)
  @IsLockId(undefined, true)
  lockId?: string;

  @ApiPropertyOptional({ example: 'tenant:42', description: 'Enqueue into this string group (not with lockId)' })
  @IsOptional()
  @IsGroupKey()
  groupKey?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, example: 5 })
  @IsOptional()
  @IsIntegerIn(1, 100)
  maxAttempts?: number;

  @ApiPropertyOptional({
    enum: ['skip', 'fill'],
    description: 'After downtime: skip the ticks older than misfireGraceMs (default), or fill the newest catchUpLimit of them',
  })
  @IsOptional()
  @IsIn(['skip', 'fill'])
  catchUp?: 'skip' | 'fill';

  @ApiPropertyOptional({ minimum: 0, maximum: MAX_CATCH_UP_LIMIT, example: 1 })
  @IsOptional()
  @IsIntegerIn(0, MAX_CATCH_UP_LIMIT)
  catchUpLimit?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 86_400_000, example: 10_000, description: 'A tick at most this late (ms) is always enqueued' })
  @IsOptional()
  @IsIntegerIn(0, 86_400_000)
  misfireGraceMs?: number;
}

/** A recurring action as the routes answer it. */
export class ScheduleResponseDto extends CreateScheduleDto {
  @ApiProperty({ enum: ['code', 'api'], description: 'code: declared by a handler option; api: created at runtime' })
  source: string;

  @ApiProperty({ example: '2025-01-01T02:30:00.000Z', format: 'date-time', description: 'The next tick to enqueue' })
  nextRunAt: string;

  @ApiProperty({ example: null, nullable: true, type: String, format: 'date-time', description: 'The newest tick enqueued' })
  lastRunAt: string | null;

  @ApiProperty({ example: 0, description: 'Missed ticks dropped by the catch-up policy' })
  skippedTicks: number;

  @ApiProperty({ example: null, nullable: true, type: String })
  lastError: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

/** The sizes of a listed schedule's content that was left out. */
export class ScheduleContentBytesDto {
  @ApiProperty({ example: 20971532, description: 'Bytes of the payload as JSON text' })
  payload: number;

  @ApiProperty({ example: 0, description: 'Bytes of the last error (0: none)' })
  lastError: number;
}

/** A schedule as `GET /schedules` lists it (ListedScheduleResource). */
export class ListedScheduleResponseDto extends ScheduleResponseDto {
  @ApiProperty({
    example: false,
    description:
      'True when its payload and lastError were left out (`payload` is `{}`, `lastError` null): they cannot fit MAX_RESPONSE_BYTES beside the rest of the list',
  })
  contentOmitted: boolean;

  @ApiPropertyOptional({ type: ScheduleContentBytesDto, description: 'The sizes of what was left out; only when `contentOmitted`' })
  contentBytes?: ScheduleContentBytesDto;
}

/** `GET /schedules`. */
export class SchedulesResponseDto {
  @ApiProperty({ type: [ListedScheduleResponseDto] })
  items: ListedScheduleResponseDto[];
}
