import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { QueueModule } from '../queue/queue.module';
import { DatabaseWritableHealthIndicator } from './database-writable.health';
import { HealthController } from './health.controller';
import { MigrationsHealthIndicator } from './migrations.health';
import { WorkerHealthIndicator } from './worker.health';

/** `/health` (liveness) and `/health/ready` (readiness), served in every role. */
@Module({
  imports: [TerminusModule.forRoot({ errorLogStyle: 'json' }), QueueModule],
  controllers: [HealthController],
  providers: [WorkerHealthIndicator, MigrationsHealthIndicator, DatabaseWritableHealthIndicator],
})
export class HealthModule {}
