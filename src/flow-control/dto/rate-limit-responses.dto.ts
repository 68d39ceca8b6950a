import { ApiProperty } from '@nestjs/swagger';

/** A handler's default limit. */
export class RateLimitValueDto {
  @ApiProperty({ example: 20 })
  perSecond: number;

  @ApiProperty({ example: 1 })
  burst: number;
}

/** The limit in force for one type. */
export class RateLimitResponseDto {
  @ApiProperty({ example: 'invoice.send' })
  type: string;

  @ApiProperty({ example: 20, description: 'Starts per second in force, on all instances together' })
  perSecond: number;

  @ApiProperty({ example: 1 })
  burst: number;

  @ApiProperty({ enum: ['override', 'handler'], example: 'override', description: 'override: PUT /rate-limits/:type; handler: @ActionHandler rateLimit' })
  source: 'override' | 'handler';

  @ApiProperty({ type: RateLimitValueDto, nullable: true })
  handlerDefault: RateLimitValueDto | null;

  @ApiProperty({ example: '2026-12-01T16:00:00.000Z' })
  updatedAt: string;
}

/** `GET /rate-limits`. */
export class RateLimitsDto {
  @ApiProperty({ type: RateLimitResponseDto, isArray: true })
  items: RateLimitResponseDto[];
}
