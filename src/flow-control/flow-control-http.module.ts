import { Module } from '@nestjs/common';
import { DrainController } from './drain.controller';
import { DrainService } from './drain.service';
import { GroupRateLimitsService } from './group-rate-limits.service';
import { PausesController } from './pauses.controller';
import { PausesService } from './pauses.service';
import { RateLimitsController } from './rate-limits.controller';
import { RateLimitsService } from './rate-limits.service';
import { TenantSettingsService } from './tenant-settings.service';
import { TenantsController } from './tenants.controller';

/** The REST routes of flow control: pauses (`/pauses`), the drain (`/queue/drain`) and rate limits (`/rate-limits`) and tenant settings (`/tenants`); mounted with the action routes. */
@Module({
  controllers: [PausesController, DrainController, RateLimitsController, TenantsController],
  providers: [PausesService, DrainService, RateLimitsService, GroupRateLimitsService, TenantSettingsService],
})
export class FlowControlHttpModule {}
