import { ServiceUnavailableException } from '@nestjs/common';
import { sqlStateOf } from '../database-errors';

/** How often an enqueue transaction that lost a deadlock or serialization conflict is run again. */
export const ENQUEUE_CONFLICT_RETRIES = 5;

/**
 * Longest pause before a new try, per try already lost (ms): a random share of
 * it spreads the contenders out; a few milliseconds is the length of one
 * enqueue transaction.
 */
const CONFLICT_PAUSE_STEP_MS = 20;

/**
 * Runs `tx` again (up to {@link ENQUEUE_CONFLICT_RETRIES} times, after a short
 * random pause) when PostgreSQL rolled it back as a deadlock victim (40P01) or
 * a serialization failure (40001). A plain SQL producer inserting into several
 * groups locks them in its own row order, so an API batch can lose a deadlock
 * to it; the rolled-back batch wrote nothing, so running it again is safe.
 * @throws ServiceUnavailableException (503) when every try lost.
 */
export async function retryOnConflict<T>(tx: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await tx();
    } catch (error) {
      const code = sqlStateOf(error);
      if (code !== '40P01' && code !== '40001') throw error;
      if (attempt > ENQUEUE_CONFLICT_RETRIES) {
        // Not the client's fault and nothing was written: 503, never 500 (G8).
        throw new ServiceUnavailableException(`enqueue lost ${attempt} lock conflicts (${code}) with concurrent writers; nothing was written, retry`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * CONFLICT_PAUSE_STEP_MS * attempt)));
    }
  }
}
