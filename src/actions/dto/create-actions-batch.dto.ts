import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, ValidateNested } from 'class-validator';
import { HoldsOpaqueJson } from '../../http/opaque-json';
import { CreateActionDto } from './create-action.dto';
import { validBatchOrUndefined } from './create-action.fast-path';

/** Most items in one batch. */
export const MAX_BATCH_ITEMS = 1000;

/** Body of `POST /actions/batch`: all or nothing, in input order. */
export class CreateActionsBatchDto {
  @ApiProperty({ type: [CreateActionDto], minItems: 1, maxItems: MAX_BATCH_ITEMS, description: 'Within a group, input order is processing order' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BATCH_ITEMS)
  @ValidateNested({ each: true })
  @Type(() => CreateActionDto)
  @HoldsOpaqueJson(() => CreateActionDto)
  actions: CreateActionDto[];

  /**
   * The validation pipe's fast path (QueueValidationPipe): the instance the
   * full pipe would return for a valid body, or undefined when the body breaks
   * any rule (the full pipe then names the field). See validBatchOrUndefined.
   * @param value the parsed JSON body.
   */
  static validOrUndefined(value: unknown): CreateActionsBatchDto | undefined {
    return validBatchOrUndefined(value, CreateActionsBatchDto, CreateActionDto, MAX_BATCH_ITEMS);
  }
}
