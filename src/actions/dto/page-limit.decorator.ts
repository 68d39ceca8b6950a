import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/**
 * An optional `limit` query field: an integer from 1 to `max`, documented with
 * its default (applied by the service). A bad value gets 400 naming `limit`.
 *
 * @param max the largest page.
 * @param defaultValue the page size when none is given.
 */
export function PageLimit(max: number, defaultValue: number): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: max, default: defaultValue }),
    IsOptional(),
    Type(() => Number),
    IsInt({ message: 'limit must be an integer' }),
    Min(1),
    Max(max),
  );
}
