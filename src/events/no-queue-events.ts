import { QueueEventSink } from './queue-event-sink';

/**
 * A sink that reports nothing: for code that runs the queue's commands
 * outside an app with listeners (the command line, a process of its own), so
 * their changes are never announced to anyone in that process.
 */
export const NO_QUEUE_EVENTS: QueueEventSink = {
  publish: () => undefined,
  wanted: () => false,
};
