import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Advisory lock key that serialises migrations across instances starting together. */
const MIGRATION_LOCK_KEY = 7_461_625_001;

/**
 * Applies pending migrations at start-up, before any worker or route runs.
 * Instances that start at the same moment wait for each other on a session
 * advisory lock instead of racing on the DDL.
 */
@Injectable()
export class MigrationsService implements OnModuleInit {
  private readonly logger = new Logger(MigrationsService.name);
  constructor(private readonly dataSource: DataSource) {}

  async onModuleInit(): Promise<void> {
    const lockRunner = this.dataSource.createQueryRunner();
    await lockRunner.connect();
    try {
      await lockRunner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      const applied = await this.dataSource.runMigrations({ transaction: 'each' });
      if (applied.length > 0) this.logger.log(`Applied migrations: ${applied.map((m) => m.name).join(', ')}`);
    } finally {
      await lockRunner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
      await lockRunner.release();
    }
  }

  /** Whether every known migration is applied (for readiness). */
  async allApplied(): Promise<boolean> {
    return !(await this.dataSource.showMigrations());
  }
}
