import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { PageLimit } from '../../actions/dto/page-limit.decorator';
import { TENANT_PATTERN } from '../../actions/dto/tenant.validator';
import { IsTextMatching } from '../../http/single-rule.validator';

/** Query of `GET /tenants`: one page of tenants with stored settings, in name order. */
export class ListTenantsQuery {
  /** 1..500, default 100. */
  @PageLimit(500, 100)
  limit?: number;

  @ApiPropertyOptional({ example: 'acme', type: String, description: 'The last tenant of the previous page (its nextCursor)' })
  @IsOptional()
  @IsTextMatching(TENANT_PATTERN, 'a tenant name (its nextCursor)')
  after?: string;
}
