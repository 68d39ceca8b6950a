import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, ValidateIf } from 'class-validator';
import { MAX_RATE_PER_SECOND, MIN_RATE_PER_SECOND } from '../../handlers/rate-limit';
import { IsIntegerIn, SingleRule } from '../../http/single-rule.validator';

/** Largest weight: the database's action_tenant_settings_weight_range (052-tenants.up.sql). */
export const MAX_TENANT_WEIGHT = 1000;

/** Largest max running a tenant may be given (a cap of more is no cap in practice). */
export const MAX_TENANT_RUNNING = 1_000_000;

/**
 * Body of `PUT /tenants/:tenant/settings`: the tenant's settings, whole (an
 * absent field takes its default: weight 1, no cap, no rate limit). A bad
 * field gets 400 naming it and nothing is written.
 */
export class SetTenantSettingsDto {
  @ApiPropertyOptional({
    exclusiveMinimum: true,
    minimum: 0,
    maximum: MAX_TENANT_WEIGHT,
    default: 1,
    example: 3,
    description:
      'Its share of the claim: heads per turn relative to the other tenants with ready heads; a number > 0 and <= 1000 (0.5: a head every other turn)',
  })
  // Absent: the default; null is not a number, so it is refused (IsOptional would let it through).
  @ValidateIf((o: SetTenantSettingsDto) => o.weight !== undefined)
  @SingleRule(
    'isWeight',
    (v) => typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= MAX_TENANT_WEIGHT,
    `a number greater than 0 and at most ${MAX_TENANT_WEIGHT}`,
  )
  weight?: number;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: MAX_TENANT_RUNNING,
    example: 10,
    description: 'The most of its actions running at once; null or absent: no cap',
  })
  @IsOptional()
  @IsIntegerIn(1, MAX_TENANT_RUNNING)
  maxRunning?: number | null;

  @ApiPropertyOptional({
    nullable: true,
    minimum: MIN_RATE_PER_SECOND,
    maximum: MAX_RATE_PER_SECOND,
    example: 50,
    description: 'Starts per second for this tenant on all instances together; null or absent: no rate limit',
  })
  @IsOptional()
  @SingleRule(
    'isRate',
    (v) => typeof v === 'number' && Number.isFinite(v) && v >= MIN_RATE_PER_SECOND && v <= MAX_RATE_PER_SECOND,
    `a number from ${MIN_RATE_PER_SECOND} to ${MAX_RATE_PER_SECOND}`,
  )
  ratePerSecond?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: MAX_RATE_PER_SECOND,
    default: 1,
    description: 'Starts allowed at once after a quiet spell (with ratePerSecond)',
  })
  @IsOptional()
  @IsIntegerIn(1, MAX_RATE_PER_SECOND)
  rateBurst?: number | null;
}
