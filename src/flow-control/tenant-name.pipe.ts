import { BadRequestException, Injectable, PipeTransform } from '@nestjs/common';
import { tenantProblem } from '../actions/dto/tenant.validator';

/**
 * Checks a `:tenant` route parameter against the tenant name's rule
 * (src/actions/dto/tenant.validator.ts) and returns it unchanged.
 * @throws BadRequestException naming `tenant`.
 */
@Injectable()
export class TenantNamePipe implements PipeTransform<string, string> {
  transform(value: string): string {
    const problem = tenantProblem(value);
    if (problem) throw new BadRequestException([`tenant ${problem}, got ${JSON.stringify(value)}`]);
    return value;
  }
}
