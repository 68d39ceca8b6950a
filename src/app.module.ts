import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { ScheduleModule } from '@nestjs/schedule';
import { ActionQueueModule } from './action-queue/action-queue.module';
import { loadSettings, Settings } from './config/settings';
import { LoggingModule } from './logging/logging.module';

/** How to build the service: the database to use, and settings (default: from process.env). */
export interface AppModuleOptions {
  databaseUrl: string;
  settings?: Settings;
  /** Extra modules, e.g. ones that register handlers. */
  imports?: DynamicModule['imports'];
}

/**
 * The root module of the service (the service starter's): the queue module
 * with every setting from the environment and all its routes (the action
 * routes unless API_ENABLED=false; health and metrics always), plus what a
 * whole service owns: structured logging, configuration and the scheduler.
 */
@Module({})
export class AppModule {
  static forRoot(options: AppModuleOptions): DynamicModule {
    const settings = options.settings ?? loadSettings(process.env);
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [() => ({ settings })] }),
        LoggingModule.forRoot(settings),
        ScheduleModule.forRoot(),
        ActionQueueModule.forRoot({
          database: { url: options.databaseUrl },
          settings,
          routes: { actions: settings.API_ENABLED, health: true, metrics: true },
          runMigrations: true,
        }),
        ...(options.imports ?? []),
      ],
    };
  }
}
