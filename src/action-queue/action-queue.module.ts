import { DynamicModule, Module, Provider } from '@nestjs/common';
import { ActionsModule } from '../actions/actions.module';
import { QueueSettings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { DatabaseModule } from '../database/database.module';
import { EventsModule } from '../events/events.module';
import { QUEUE_DATABASE_CONFIG, QueueDatabaseConfig } from '../database/queue-database-config';
import { MetricsModule } from '../metrics/metrics.module';
import { QueueModule } from '../queue/queue.module';
import { defaultWorkerId } from '../queue/instance/worker-id';
import { WORKER_ID } from '../queue/instance/worker-id.token';
import { RetentionModule } from '../retention/retention.module';
import { SchedulesModule } from '../schedules/schedules.module';
import { ACTION_QUEUE_OPTIONS } from './action-queue.constants';
import { ActionQueueModuleAsyncOptions, ActionQueueModuleOptions, ActionQueueModuleRootOptions } from './action-queue-options.interface';
import { ResolvedRoutes, resolveRoutes, routeModules } from './action-queue-routes';
import { settingsFromOptions } from './action-queue-settings';

/**
 * The ordered action queue as a module of your Nest application: the worker
 * that runs your handlers, the enqueue service, and optionally the REST
 * routes. Import it once, in the root module; it is global, so
 * {@link ActionQueue} can be injected anywhere, and every provider marked
 * with {@link ActionHandler}, in any module, is found at start-up.
 *
 * It leaves the application to you: no global pipe, filter, logger, body
 * parser, configuration module or signal handler is installed. It logs
 * through Nest's `Logger` (so through the app's logger), and drains its
 * worker when the app closes: call `app.enableShutdownHooks()` or
 * `app.close()` on SIGTERM, else running actions wait for their lease to
 * expire.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [
 *     TypeOrmModule.forRoot({ type: 'postgres', url: process.env.DATABASE_URL, entities: [Invoice] }),
 *     ActionQueueModule.forRootAsync({
 *       inject: [DataSource],
 *       useFactory: (dataSource: DataSource) => ({ database: { dataSource }, worker: { concurrency: 8 } }),
 *     }),
 *     BillingModule, // provides an @ActionHandler('invoice.send') class
 *   ],
 * })
 * export class AppModule {}
 * ```
 * @publicApi
 */
@Module({})
export class ActionQueueModule {
  /**
   * The module with options known up front.
   * @param options the database, and optionally the worker, lease, retry, retention, routes and migration options.
   * @throws Error at start-up naming an invalid option, a handler problem or a database that cannot be reached.
   */
  static forRoot(options: ActionQueueModuleRootOptions): DynamicModule {
    const { routes, ...moduleOptions } = options;
    return assemble({ provide: ACTION_QUEUE_OPTIONS, useValue: moduleOptions }, [], resolveRoutes(routes));
  }

  /**
   * The module with options built by a factory from other providers (e.g.
   * the app's `DataSource` or `ConfigService`). The routes are given beside
   * the factory.
   * @param options `imports`, `inject`, `useFactory` and `routes`.
   * @throws Error at start-up naming an invalid option, a handler problem or a database that cannot be reached.
   */
  static forRootAsync(options: ActionQueueModuleAsyncOptions): DynamicModule {
    const optionsProvider: Provider = { provide: ACTION_QUEUE_OPTIONS, inject: options.inject ?? [], useFactory: options.useFactory };
    return assemble(optionsProvider, options.imports ?? [], resolveRoutes(options.routes));
  }
}

/**
 * The module from its options provider: the queue's parts, the chosen
 * routes, and the SETTINGS provider (by default: the options turned into
 * settings and validated, settingsFromOptions).
 */
function assemble(
  optionsProvider: Provider,
  imports: NonNullable<DynamicModule['imports']>,
  routes: ResolvedRoutes | null,
  settingsProvider: Provider = {
    provide: SETTINGS,
    inject: [ACTION_QUEUE_OPTIONS],
    useFactory: (options: ActionQueueModuleOptions) => settingsFromOptions(options, routes),
  },
): DynamicModule {
  return {
    module: ActionQueueModule,
    // Global like TypeOrmModule's core: the queue's tokens reach its inner
    // modules (and ActionsService the app's) without re-exports at each level.
    global: true,
    imports: [...imports, MetricsModule, DatabaseModule, EventsModule, ActionsModule, QueueModule, RetentionModule, SchedulesModule, ...routeModules(routes)],
    providers: [
      optionsProvider,
      settingsProvider,
      { provide: WORKER_ID, inject: [SETTINGS], useFactory: (settings: QueueSettings) => settings.WORKER_ID ?? defaultWorkerId() },
      {
        provide: QUEUE_DATABASE_CONFIG,
        inject: [ACTION_QUEUE_OPTIONS],
        useFactory: (options: ActionQueueModuleOptions): QueueDatabaseConfig => ({
          database: options.database,
          runMigrations: options.runMigrations !== false,
        }),
      },
    ],
    exports: [ACTION_QUEUE_OPTIONS, SETTINGS, WORKER_ID, QUEUE_DATABASE_CONFIG, ActionsModule, EventsModule],
  };
}

/**
 * The queue module of this repository's service (AppModule): its settings
 * were read from the environment and validated once (loadSettings), so they
 * are the SETTINGS as they are, not turned into module options and validated
 * again. All routes: the action routes unless API_ENABLED=false, health and
 * metrics always; migrations run at start-up.
 *
 * @param settings the validated settings of the service.
 * @param databaseUrl the database (DATABASE_URL, or the embedded server's).
 */
export function actionQueueModuleOfService(settings: QueueSettings, databaseUrl: string): DynamicModule {
  const options: ActionQueueModuleOptions = { database: { url: databaseUrl }, runMigrations: true };
  const routes = resolveRoutes({ actions: settings.API_ENABLED, health: true, metrics: true });
  return assemble({ provide: ACTION_QUEUE_OPTIONS, useValue: options }, [], routes, { provide: SETTINGS, useValue: settings });
}
