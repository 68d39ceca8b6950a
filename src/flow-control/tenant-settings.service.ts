import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QUEUE_DATA_SOURCE } from '../database/queue-data-source.token';
import { SetTenantSettingsDto } from './dto/set-tenant-settings.dto';
import { DELETE_TENANT_SETTINGS_SQL, LIST_TENANT_SETTINGS_SQL, SELECT_TENANT_SETTINGS_SQL, UPSERT_TENANT_SETTINGS_SQL } from './sql/tenant-settings.sql';
import { TenantSettingsResource } from './tenant-settings.resource';

/** A row of action_tenant_settings as the statements of sql/tenant-settings.sql.ts read it. */
interface TenantSettingsRow {
  tenant: string;
  weight: number;
  max_running: number | null;
  rate_per_second: number | null;
  rate_burst: number | null;
  updated_at: Date;
}

/** The settings of a tenant that has none stored. */
function defaultsOf(tenant: string): TenantSettingsResource {
  return { tenant, weight: 1, maxRunning: null, ratePerSecond: null, rateBurst: null, stored: false, updatedAt: null };
}

function toResource(row: TenantSettingsRow): TenantSettingsResource {
  return {
    tenant: row.tenant,
    weight: row.weight,
    maxRunning: row.max_running,
    ratePerSecond: row.rate_per_second,
    rateBurst: row.rate_burst,
    stored: true,
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * Reads and writes per-tenant settings (weight, max running, rate limit):
 * rows of action_tenant_settings, which every instance's claim reads
 * (src/database/functions/aq_claim_tenant_turns.sql); a change takes effect at
 * each instance's next claim. docs/tenants.md.
 */
@Injectable()
export class TenantSettingsService {
  constructor(@Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource) {}

  /** Tenants with stored settings, in name order, after `after` (exclusive), at most `limit`. */
  async list(after: string, limit: number): Promise<{ items: TenantSettingsResource[]; nextCursor: string | null }> {
    const rows: TenantSettingsRow[] = await this.dataSource.query(LIST_TENANT_SETTINGS_SQL, [after, limit]);
    return { items: rows.map(toResource), nextCursor: rows.length === limit ? rows[rows.length - 1].tenant : null };
  }

  /** One tenant's settings: the stored ones, or the defaults (`stored: false`). `tenant` is a valid name. */
  async get(tenant: string): Promise<TenantSettingsResource> {
    const [row]: TenantSettingsRow[] = await this.dataSource.query(SELECT_TENANT_SETTINGS_SQL, [tenant]);
    return row ? toResource(row) : defaultsOf(tenant);
  }

  /** Stores a tenant's settings whole (absent fields: the defaults); validated by SetTenantSettingsDto. */
  async set(tenant: string, body: SetTenantSettingsDto): Promise<TenantSettingsResource> {
    const rate = body.ratePerSecond ?? null;
    const [row]: TenantSettingsRow[] = await this.dataSource.query(UPSERT_TENANT_SETTINGS_SQL, [
      tenant,
      body.weight ?? 1,
      body.maxRunning ?? null,
      rate,
      rate === null ? null : (body.rateBurst ?? 1),
    ]);
    return toResource(row);
  }

  /**
   * Deletes a tenant's settings: it is back to the defaults.
   * @throws NotFoundException when none were stored.
   */
  async delete(tenant: string): Promise<void> {
    const rows: unknown[] = await this.dataSource.query(DELETE_TENANT_SETTINGS_SQL, [tenant]);
    if (rows.length === 0) throw new NotFoundException(`tenant ${tenant} has no stored settings`);
  }
}
