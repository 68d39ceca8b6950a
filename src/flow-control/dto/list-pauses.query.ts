import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IsInt64Text } from '../../actions/dto/int64.validator';
import { PageLimit } from '../../actions/dto/page-limit.decorator';
import { PAUSE_SCOPES, PauseScope } from '../pause-scope';

/** Query of `GET /pauses`: one page in id order. */
export class ListPausesQuery {
  @ApiPropertyOptional({ enum: PAUSE_SCOPES, description: 'Only pauses of this scope' })
  @IsOptional()
  @IsIn(PAUSE_SCOPES, { message: `scope must be one of ${PAUSE_SCOPES.join(', ')}` })
  scope?: PauseScope;

  /** 1..200, default 50. */
  @PageLimit(200, 50)
  limit?: number;

  @ApiPropertyOptional({ example: '0', type: String, description: 'The last id of the previous page (its nextCursor)' })
  @IsOptional()
  @IsInt64Text(0n)
  after?: string;
}
