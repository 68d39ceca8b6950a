import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { buildDataSourceOptions } from './data-source-options';
import { MigrationsService } from './migrations.service';
import { PG_POOL, pgPoolProvider } from './pg-pool.provider';

/** TypeORM DataSource, the raw pg pool, and migrations on start-up. */
@Global()
@Module({})
export class DatabaseModule {
  /** @param databaseUrl the server to use (DATABASE_URL, or the embedded server's URL). */
  static forRoot(databaseUrl: string): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [SETTINGS],
          useFactory: (settings: Settings) => buildDataSourceOptions(databaseUrl, settings.DB_POOL_SIZE),
        }),
      ],
      providers: [pgPoolProvider, MigrationsService],
      exports: [PG_POOL, MigrationsService],
    };
  }
}
