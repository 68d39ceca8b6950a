import { Module } from '@nestjs/common';
import { ActionHandlersModule } from '../handlers/action-handlers.module';
import { MetricsModule } from '../metrics/metrics.module';
import { AttemptFinisher } from './attempt-finisher.service';
import { ClaimerService } from './claimer.service';
import { NotificationListener } from './notification-listener.service';
import { ReaperService } from './reaper.service';
import { WorkerMetrics } from './worker-metrics';
import { WorkerService } from './worker.service';

/** The worker side: claim, run, heartbeat, finish, reap. */
@Module({
  imports: [ActionHandlersModule, MetricsModule],
  providers: [ClaimerService, AttemptFinisher, ReaperService, NotificationListener, WorkerMetrics, WorkerService],
  exports: [WorkerService, ClaimerService, ReaperService],
})
export class QueueModule {}
