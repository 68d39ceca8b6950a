import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { QueueEventSink } from './queue-event-sink';
import { QueueEventBus } from './queue-event-bus';
import { QueueEvents } from './queue-events';
import { QueueEventsExplorer } from './queue-events.explorer';

/**
 * The lifecycle events: one QueueEventBus, injected as {@link QueueEvents}
 * (the listener API apps use) and as QueueEventSink (what the worker and the
 * commands publish to), and the explorer of `@OnQueueEvent` methods. The dropped-events counter comes from the
 * global MetricsModule.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    QueueEventBus,
    { provide: QueueEvents, useExisting: QueueEventBus },
    { provide: QueueEventSink, useExisting: QueueEventBus },
    QueueEventsExplorer,
  ],
  exports: [QueueEvents, QueueEventSink],
})
export class EventsModule {}
