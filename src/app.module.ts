import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { ScheduleModule } from '@nestjs/schedule';
import { ActionsModule } from './actions/actions.module';
import { loadSettings, Settings } from './config/settings';
import { SETTINGS } from './config/settings.token';
import { DashboardModule } from './dashboard/dashboard.module';
import { dashboardServed } from './dashboard/dashboard-assets';
import { DatabaseModule } from './database/database.module';
import { DATABASE_URL } from './database/database-url.token';
import { DemoHandlersModule } from './demo/demo-handlers.module';
import { HealthModule } from './health/health.module';
import { LoggingModule } from './logging/logging.module';
import { MetricsHttpModule } from './metrics/metrics-http.module';
import { MetricsModule } from './metrics/metrics.module';
import { QueueModule } from './queue/queue.module';
import { RetentionModule } from './retention/retention.module';
import { defaultWorkerId } from './queue/worker-id';
import { WORKER_ID } from './queue/worker-id.token';

/** How to build the app: the database to use, and settings (default: from process.env). */
export interface AppModuleOptions {
  databaseUrl: string;
  settings?: Settings;
  /** Extra modules, e.g. ones that register handlers. */
  imports?: DynamicModule['imports'];
}

/** The root module. Built by {@link AppModule.forRoot} from validated settings. */
@Module({})
export class AppModule {
  static forRoot(options: AppModuleOptions): DynamicModule {
    const settings = options.settings ?? loadSettings(process.env);
    return {
      module: AppModule,
      global: true,
      imports: [
        ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [() => ({ settings })] }),
        LoggingModule.forRoot(settings),
        ScheduleModule.forRoot(),
        MetricsModule,
        DatabaseModule.forRoot(options.databaseUrl),
        QueueModule,
        ActionsModule.register({ withRoutes: settings.API_ENABLED }),
        HealthModule,
        MetricsHttpModule,
        RetentionModule,
        ...(dashboardServed(settings) ? [DashboardModule] : []),
        ...(settings.DEMO_HANDLERS ? [DemoHandlersModule] : []),
        ...(options.imports ?? []),
      ],
      providers: [
        { provide: SETTINGS, useValue: settings },
        { provide: DATABASE_URL, useValue: options.databaseUrl },
        { provide: WORKER_ID, useValue: settings.WORKER_ID ?? defaultWorkerId() },
      ],
      exports: [SETTINGS, DATABASE_URL, WORKER_ID],
    };
  }
}
