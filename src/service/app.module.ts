import { DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { DataSource, EntityManager } from 'typeorm';
import { actionQueueModuleOfService } from '../action-queue/action-queue.module';
import { loadSettings, ServiceSettings } from '../config/settings';
import { QUEUE_DATA_SOURCE } from '../database/queue-data-source.token';
import { DashboardModule } from '../dashboard/dashboard.module';
import { DASHBOARD_PATH, dashboardServed } from '../dashboard/dashboard-assets';
import { LoggingModule } from './logging/logging.module';

/** How to build the service: the database to use, and settings (default: from process.env). */
export interface AppModuleOptions {
  databaseUrl: string;
  settings?: ServiceSettings;
  /** Extra modules, e.g. ones that register handlers; ScheduleModule.forRoot() is already in (do not import it again). */
  imports?: DynamicModule['imports'];
}

/**
 * The root module of the service (the service starter's): the queue module
 * with every setting from the environment and all its routes (the action
 * routes unless API_ENABLED=false; health and metrics always), plus what a
 * whole service owns: structured logging, Nest's scheduler
 * (ScheduleModule.forRoot(), which times the recurring actions: modules given
 * in `imports` use it and must not import it again) and
 * the queue's DataSource as the app's (TypeORM's `DataSource` and
 * `EntityManager` tokens), as when the service opened it through TypeOrmModule.
 */
@Module({})
export class AppModule {
  static forRoot(options: AppModuleOptions): DynamicModule {
    const settings = options.settings ?? loadSettings(process.env);
    return {
      module: AppModule,
      global: true,
      imports: [
        LoggingModule.forRoot(settings),
        ScheduleModule.forRoot(),
        // Validated once (loadSettings): used as they are, not validated again as module options.
        actionQueueModuleOfService(settings, options.databaseUrl),
        ...(dashboardServed(settings) ? [DashboardModule.at(DASHBOARD_PATH)] : []),
        ...(options.imports ?? []),
      ],
      providers: [
        { provide: DataSource, useExisting: QUEUE_DATA_SOURCE },
        { provide: EntityManager, inject: [QUEUE_DATA_SOURCE], useFactory: (dataSource: DataSource) => dataSource.manager },
      ],
      exports: [DataSource, EntityManager],
    };
  }
}
