import { Injectable, Logger } from '@nestjs/common';
import { ActionCompletedEvent, ActionFailedEvent, OnQueueEvent } from 'ordered-action-queue';

/**
 * Hears what the queue did with the app's actions, in-process, after the
 * commit: an ordinary provider whose marked methods the queue finds at
 * start-up. At most once (the action's row and trace are the record), and never
 * in the worker's way: a slow or failing listener only loses its own events.
 */
@Injectable()
export class OrderEventsListener {
  private readonly logger = new Logger(OrderEventsListener.name);

  @OnQueueEvent('completed')
  onCompleted(event: ActionCompletedEvent) {
    this.logger.log(`action ${event.actionId} (${event.type}) completed at attempt ${event.attempt}`);
  }

  @OnQueueEvent('failed')
  onFailed(event: ActionFailedEvent) {
    if (!event.willRetry) this.logger.warn(`action ${event.actionId} (${event.type}) failed for good: ${event.error}`);
  }
}
