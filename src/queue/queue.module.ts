import { QueueSettings } from '../config/settings';
import { SETTINGS } from '../config/settings.token';
import { DATABASE_URL } from '../database/database-url.token';
import { planWakeUp, WAKE_UP_PLAN } from './wake/wake-up-plan';
import { leaseTiming } from './instance/lease-timing';
import { LEASE_TIMING } from './instance/lease-timing.token';
import { Module } from '@nestjs/common';
import { ActionHandlersModule } from '../handlers/action-handlers.module';
import { MetricsModule } from '../metrics/metrics.module';
import { AttemptExecutor } from './attempt/attempt-executor.service';
import { AttemptFinisher } from './attempt/attempt-finisher.service';
import { AttemptRunner } from './attempt/attempt-runner.service';
import { ClaimerService } from './claim/claimer.service';
import { QueueSpans } from '../tracing/queue-spans';
import { EventLoopWatchdog } from './containment/event-loop-watchdog.service';
import { StrayErrorGuard } from './containment/stray-error.guard';
import { WatchdogSharedState } from './containment/watchdog-shared-state';
import { HandlerThreads } from './isolation/handler-threads.service';
import { LeaseKeeper } from './lease/lease-keeper.service';
import { NotificationListener } from './wake/notification-listener.service';
import { ReapedLeases } from './lease/reaped-leases';
import { ReaperService } from './lease/reaper.service';
import { SuspectRunner } from './worker/suspect-runner.service';
import { WorkerMetrics } from './instance/worker-metrics';
import { WakeLeadership } from './wake/wake-leadership';
import { RateLimitDefaults } from './claim/rate-limit-defaults.service';
import { TypeBackOff } from './claim/type-back-off.service';
import { WorkerService } from './worker/worker.service';
import { WorkerSlots } from './instance/worker-slots';

/**
 * The worker side: claim (ClaimerService) and dispatch (WorkerService), run
 * each attempt (AttemptExecutor → AttemptRunner, HandlerThreads), keep leases
 * (LeaseKeeper), record ends (AttemptFinisher), reap expired leases
 * (ReaperService, which publishes what it reaped: ReapedLeases), run suspect actions one per instance beside other work (SuspectRunner), and
 * contain misbehaving handlers (StrayErrorGuard, EventLoopWatchdog). docs/architecture.md draws the path of an action.
 */
@Module({
  imports: [ActionHandlersModule, MetricsModule],
  providers: [
    WorkerSlots,
    WorkerMetrics,
    // Derived once: every part of the worker reads the same figures.
    { provide: LEASE_TIMING, inject: [SETTINGS], useFactory: (settings: QueueSettings) => leaseTiming(settings.LEASE_MS) },
    { provide: WatchdogSharedState, useFactory: () => new WatchdogSharedState() },
    { provide: QueueSpans, useFactory: () => new QueueSpans() },
    ClaimerService,
    LeaseKeeper,
    HandlerThreads,
    AttemptRunner,
    AttemptFinisher,
    AttemptExecutor,
    TypeBackOff,
    RateLimitDefaults,
    {
      provide: WAKE_UP_PLAN,
      inject: [SETTINGS, DATABASE_URL],
      useFactory: (settings: QueueSettings, databaseUrl: string) => planWakeUp(settings, databaseUrl),
    },
    NotificationListener,
    WakeLeadership,
    SuspectRunner,
    WorkerService,
    ReapedLeases,
    ReaperService,
    StrayErrorGuard,
    EventLoopWatchdog,
  ],
  exports: [WorkerService, WorkerSlots, ReaperService],
})
export class QueueModule {}
