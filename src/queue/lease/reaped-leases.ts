import { Injectable } from '@nestjs/common';

/**
 * What the reaper reaped, for whoever cares: after a round that ended any
 * expired leases, ReaperService publishes how many, and the worker loop
 * (subscribed at start) asks its SuspectRunner for a suspect at once, since a
 * reaped action may have become one. The reaper knows nothing of the worker:
 * lease/ sits below worker/ (src/queue/README.md).
 *
 * Listeners run synchronously, in subscription order, inside the reaper's
 * round; an error a listener throws fails that round (logged by the reaper).
 */
@Injectable()
export class ReapedLeases {
  private readonly listeners = new Set<(count: number) => void>();

  /**
   * Calls `listener` after every reaper round of this instance that reaped leases.
   * @param listener receives how many leases the round reaped (> 0).
   * @returns a function that unsubscribes it.
   */
  subscribe(listener: (count: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Tells every subscriber that a round reaped `count` leases.
   * @param count how many leases the round reaped (> 0).
   */
  publish(count: number): void {
    for (const listener of this.listeners) listener(count);
  }
}
