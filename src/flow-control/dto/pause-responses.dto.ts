import { ApiProperty } from '@nestjs/swagger';
import { PAUSE_SCOPES, PauseScope } from '../pause-scope';

/** One pause (`POST /pauses`, an item of `GET /pauses`). */
export class PauseResponseDto {
  @ApiProperty({ example: '3', description: 'DELETE /pauses/:id resumes it' })
  id: string;

  @ApiProperty({ enum: PAUSE_SCOPES, example: 'group' })
  scope: PauseScope;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'The paused type (scope type)' })
  type: string | null;

  @ApiProperty({ type: String, nullable: true, example: '26', description: "The paused group's lock id (scope group)" })
  lockId: string | null;

  @ApiProperty({ type: String, nullable: true, example: null, description: "The paused group's string key, when it has one" })
  groupKey: string | null;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'The paused tenant (scope tenant)' })
  tenant: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'payments API down' })
  reason: string | null;

  @ApiProperty({ example: '2026-12-01T16:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'When a timed pause ends by itself; null: until resumed' })
  until: string | null;
}

/** `GET /pauses`: one page in id order. */
export class PausesPageDto {
  @ApiProperty({ type: PauseResponseDto, isArray: true })
  items: PauseResponseDto[];

  @ApiProperty({ type: String, nullable: true, example: null, description: 'Pass as `after` for the next page; null on the last page' })
  nextCursor: string | null;
}

/** `/queue/drain`: the drain's state. */
export class DrainResponseDto {
  @ApiProperty({ example: true, description: 'The queue is paused: no instance claims anything' })
  draining: boolean;

  @ApiProperty({ example: 2, description: 'Actions running now, on every instance' })
  running: number;

  @ApiProperty({ example: false, description: 'Draining and nothing running' })
  drained: boolean;

  @ApiProperty({ type: String, nullable: true, example: '2026-12-01T16:00:00.000Z', description: 'Since when the queue is paused' })
  since: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'drain' })
  reason: string | null;
}
