import { BadRequestException, Injectable, PipeTransform } from '@nestjs/common';

/** Parses an `:id` route parameter: a positive 64-bit integer, returned as a canonical decimal string. */
@Injectable()
export class ActionIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!/^\d{1,19}$/.test(value) || BigInt(value) < 1n || BigInt(value) > 2n ** 63n - 1n) {
      throw new BadRequestException([`id must be a positive integer, got ${JSON.stringify(value)}`]);
    }
    return BigInt(value).toString();
  }
}
