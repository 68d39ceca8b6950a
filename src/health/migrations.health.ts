import { Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { MigrationsService } from '../database/migrations.service';

/** Readiness of the schema: up when every known migration is applied. */
@Injectable()
export class MigrationsHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly migrations: MigrationsService,
  ) {}

  /** @param key the key of the result, e.g. `migrations`. */
  async isApplied<Key extends string>(key: Key): Promise<HealthIndicatorResult<Key>> {
    const check = this.indicators.check(key);
    try {
      return (await this.migrations.allApplied()) ? check.up() : check.down({ message: 'migrations are pending' });
    } catch (error) {
      return check.down({ message: (error as Error).message });
    }
  }
}
