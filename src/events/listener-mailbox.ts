/**
 * One listener's backlog: events wait here and are handed to the listener one
 * at a time, in order, each on a later turn of the event loop (setImmediate),
 * never on the publisher's call stack. A listener that returns a promise gets
 * its next event once the promise settles, so a slow listener only delays its
 * own events; when its backlog holds `maxBacklog` events, new ones are dropped
 * and `onDrop` is told (the counter), so a slow or hung listener costs at most
 * that much memory and never the publisher's time. A listener that throws or
 * rejects is reported to `onError` and keeps receiving.
 */
export class ListenerMailbox<T> {
  private readonly backlog: T[] = [];
  private head = 0;
  private draining = false;
  private closed = false;

  /**
   * @param listener called with each event; may return a promise.
   * @param maxBacklog events kept waiting at most (a positive integer).
   * @param onDrop told of each dropped event.
   * @param onError told of each error the listener threw or rejected with.
   */
  constructor(
    private readonly listener: (event: T) => unknown,
    private readonly maxBacklog: number,
    private readonly onDrop: (event: T) => void,
    private readonly onError: (error: unknown, event: T) => void,
  ) {}

  /** Events waiting, the one being delivered excluded. */
  get waiting(): number {
    return this.backlog.length - this.head;
  }

  /** Queues an event for delivery, or drops it when the backlog is full; never throws, never calls the listener now. */
  post(event: T): void {
    if (this.closed) return;
    if (this.waiting >= this.maxBacklog) {
      this.onDrop(event);
      return;
    }
    this.backlog.push(event);
    if (!this.draining) {
      this.draining = true;
      setImmediate(() => void this.drain());
    }
  }

  /** Stops delivery: events still waiting are discarded, an event being delivered finishes. */
  close(): void {
    this.closed = true;
    this.backlog.length = 0;
    this.head = 0;
  }

  private async drain(): Promise<void> {
    try {
      while (!this.closed && this.waiting > 0) {
        const event = this.backlog[this.head++];
        if (this.head > 1024 && this.head * 2 > this.backlog.length) {
          // Reclaim the delivered prefix now and then rather than shifting on each event.
          this.backlog.splice(0, this.head);
          this.head = 0;
        }
        await this.deliver(event);
        // One event per turn: a burst never holds the event loop for long.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.draining = false;
    }
    if (!this.closed && this.waiting > 0) {
      this.draining = true;
      setImmediate(() => void this.drain());
    }
  }

  private async deliver(event: T): Promise<void> {
    try {
      await this.listener(event);
    } catch (error) {
      try {
        this.onError(error, event);
      } catch {
        // A failing error report must not stop delivery either.
      }
    }
  }
}
