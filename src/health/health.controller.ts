import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { QUEUE_DATA_SOURCE } from '../database/queue-data-source.token';
import { DatabaseWritableHealthIndicator } from './database-writable.health';
import { MigrationsHealthIndicator } from './migrations.health';
import { WorkerHealthIndicator } from './worker.health';

/** Database ping timeout (ms). */
export const PING_TIMEOUT_MS = 2_000;

/**
 * Health checks with @nestjs/terminus. Both answer 200 with
 * `{ status: 'ok', info, error, details }`, or 503 with `status: 'error'` and
 * the failing part under `error` (e.g. `error.database`). Open even when
 * API_KEY is set.
 */
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly worker: WorkerHealthIndicator,
    private readonly migrations: MigrationsHealthIndicator,
    private readonly writable: DatabaseWritableHealthIndicator,
    @Inject(QUEUE_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

  private ping() {
    return this.db.pingCheck('database', { connection: this.dataSource, timeout: PING_TIMEOUT_MS });
  }

  /** Liveness: the database answers a ping within 2 s, the worker loop ticked recently and stuck handlers hold fewer slots than their limit. */
  @Get()
  @HealthCheck()
  @ApiOperation({ summary: 'Liveness: database ping, worker loop, stuck slots' })
  @ApiServiceUnavailableResponse({ description: 'The database or the worker loop is down; the body names it' })
  live() {
    return this.health.check([() => this.ping(), () => this.worker.isAlive('worker')]);
  }

  /** Readiness: the database answers and accepts writes, every migration is applied, and stuck handlers hold fewer slots than their limit. */
  @Get('ready')
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness: database ping, database writable, migrations applied, worker capacity' })
  @ApiServiceUnavailableResponse({ description: 'Not ready; the body names the failing part' })
  ready() {
    return this.health.check([
      () => this.ping(),
      () => this.writable.isWritable('writable'),
      () => this.migrations.isApplied('migrations'),
      () => this.worker.hasCapacity('worker'),
    ]);
  }
}
