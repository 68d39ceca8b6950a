import { BadRequestException, Injectable, PipeTransform } from '@nestjs/common';
import { int64TextProblem } from './dto/int64.validator';

/**
 * Parses an `:id` route parameter: a positive integer within the signed
 * 64-bit range (PostgreSQL bigint), returned as a canonical decimal string.
 * @throws BadRequestException naming `id` (beyond int64: "must fit in a signed 64-bit integer").
 */
@Injectable()
export class ActionIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    const problem = int64TextProblem(value, 1n);
    if (problem) throw new BadRequestException([`id ${problem}, got ${JSON.stringify(value)}`]);
    return BigInt(value).toString();
  }
}
