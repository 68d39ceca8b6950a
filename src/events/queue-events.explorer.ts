import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { QueueEventSubscription } from './on-queue-event.decorator';
import { QUEUE_EVENT_LISTENER_METADATA } from './queue-events.constants';
import { QueueEvents } from './queue-events';

/**
 * Finds the methods marked with `@OnQueueEvent` on every provider and
 * controller (in `onModuleInit`, as `@nestjs/event-emitter` does) and
 * subscribes each to {@link QueueEvents}; unsubscribes them when the app closes.
 */
@Injectable()
export class QueueEventsExplorer implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(QueueEventsExplorer.name);
  private readonly unsubscribes: (() => void)[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly events: QueueEvents,
  ) {}

  onModuleInit(): void {
    for (const wrapper of [...this.discovery.getProviders(), ...this.discovery.getControllers()]) {
      // NOTE: only static singletons are subscribed: a request-scoped or
      // transient provider has no one instance to call (nor has one still
      // being built asynchronously).
      const { instance } = wrapper;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic() || wrapper.isTransient) continue;
      const prototype = Object.getPrototypeOf(instance) as object | null;
      if (!prototype) continue;
      for (const key of this.scanner.getAllMethodNames(prototype)) {
        const method = (instance as Record<string, unknown>)[key];
        if (typeof method !== 'function') continue;
        const subscriptions = Reflect.getMetadata(QUEUE_EVENT_LISTENER_METADATA, method) as QueueEventSubscription[] | undefined;
        for (const { name, options } of subscriptions ?? []) {
          const label = `${instance.constructor.name}.${key}`;
          this.unsubscribes.push(this.events.on(name, (payload) => method.call(instance, payload) as unknown, { ...options, name: label }));
          this.logger.log(`${label} listens for queue event "${name}"`);
        }
      }
    }
  }

  onModuleDestroy(): void {
    this.unsubscribes.splice(0).forEach((unsubscribe) => unsubscribe());
  }
}
