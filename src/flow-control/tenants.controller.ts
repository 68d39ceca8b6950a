import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query, UseInterceptors, UsePipes } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ErrorResponseDto } from '../actions/dto/action-responses.dto';
import { DatabaseUnavailableInterceptor } from '../http/database-unavailable.interceptor';
import { JsonBodyInterceptor } from '../http/json-body.interceptor';
import { QueueValidationPipe } from '../http/validation.pipe';
import { ListTenantsQuery } from './dto/list-tenants.query';
import { SetTenantSettingsDto } from './dto/set-tenant-settings.dto';
import { TenantSettingsPageDto, TenantSettingsResponseDto } from './dto/tenant-settings-responses.dto';
import { TenantNamePipe } from './tenant-name.pipe';
import { TenantSettingsResource } from './tenant-settings.resource';
import { TenantSettingsService } from './tenant-settings.service';

/** `/tenants`: per-tenant settings of the claim, weight, max running and rate limit, changed at runtime (docs/tenants.md). */
@ApiTags('flow control')
@UsePipes(QueueValidationPipe)
@UseInterceptors(JsonBodyInterceptor, DatabaseUnavailableInterceptor)
@Controller('tenants')
export class TenantsController {
  constructor(private readonly settings: TenantSettingsService) {}

  @Get()
  @ApiOperation({ summary: 'Tenants with stored settings, in name order (a tenant without any has weight 1, no cap, no rate limit)' })
  @ApiOkResponse({ type: TenantSettingsPageDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'limit or after is invalid' })
  list(@Query() query: ListTenantsQuery): Promise<{ items: TenantSettingsResource[]; nextCursor: string | null }> {
    return this.settings.list(query.after ?? '', query.limit ?? 100);
  }

  @Get(':tenant/settings')
  @ApiOperation({ summary: "A tenant's settings: the stored ones, or the defaults (stored: false)" })
  @ApiParam({ name: 'tenant', example: 'acme' })
  @ApiOkResponse({ type: TenantSettingsResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'tenant is not a valid tenant name' })
  get(@Param('tenant', TenantNamePipe) tenant: string): Promise<TenantSettingsResource> {
    return this.settings.get(tenant);
  }

  @Put(':tenant/settings')
  @ApiOperation({ summary: "Store a tenant's settings whole (absent fields take their defaults); every instance's next claim follows them" })
  @ApiParam({ name: 'tenant', example: 'acme' })
  @ApiOkResponse({ type: TenantSettingsResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'tenant or a field is invalid; `message` names it; nothing is written' })
  put(@Param('tenant', TenantNamePipe) tenant: string, @Body() body: SetTenantSettingsDto): Promise<TenantSettingsResource> {
    return this.settings.set(tenant, body);
  }

  @Delete(':tenant/settings')
  @HttpCode(204)
  @ApiOperation({ summary: "Delete a tenant's settings: back to weight 1, no cap, no rate limit" })
  @ApiParam({ name: 'tenant', example: 'acme' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'tenant is not a valid tenant name' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'No settings are stored for this tenant' })
  delete(@Param('tenant', TenantNamePipe) tenant: string): Promise<void> {
    return this.settings.delete(tenant);
  }
}
