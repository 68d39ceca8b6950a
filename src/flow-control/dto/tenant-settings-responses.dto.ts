import { ApiProperty } from '@nestjs/swagger';
import type { Describes } from '../../actions/dto/describes';
import type { TenantSettingsResource } from '../tenant-settings.resource';

/** `GET`/`PUT /tenants/:tenant/settings`: a tenant's settings. */
export class TenantSettingsResponseDto implements Describes<TenantSettingsResource, TenantSettingsResponseDto> {
  @ApiProperty({ example: 'acme' })
  tenant: string;

  @ApiProperty({ example: 3, description: 'Heads per turn in the claim, relative to the other tenants; default 1' })
  weight: number;

  @ApiProperty({ example: 10, nullable: true, type: 'integer', description: 'The most of its actions running at once, or null: no cap' })
  maxRunning: number | null;

  @ApiProperty({ example: null, nullable: true, type: Number, description: 'Starts per second on all instances together, or null: no rate limit' })
  ratePerSecond: number | null;

  @ApiProperty({ example: null, nullable: true, type: 'integer', description: 'Starts allowed at once after a quiet spell, with ratePerSecond' })
  rateBurst: number | null;

  @ApiProperty({ example: true, description: 'false: nothing stored, these are the defaults' })
  stored: boolean;

  @ApiProperty({ example: '2026-12-06T05:00:00.000Z', nullable: true, type: String, format: 'date-time' })
  updatedAt: string | null;
}

/** `GET /tenants`: tenants with stored settings, one page in name order. */
export class TenantSettingsPageDto {
  @ApiProperty({ type: TenantSettingsResponseDto, isArray: true })
  items: TenantSettingsResponseDto[];

  @ApiProperty({ example: null, nullable: true, type: String, description: 'Pass as `after` for the next page; null on the last page' })
  nextCursor: string | null;
}
