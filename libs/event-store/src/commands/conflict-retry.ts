import { setTimeout as sleep } from 'node:timers/promises';
import { WrongExpectedVersionError } from '../errors';

/** How many times a conflicting writer makes a command reload and decide again before giving up. */
export const CONFLICT_ATTEMPTS = 50;

/**
 * The one retry policy for a command that lost a race on a stream: run `attempt` again, after a
 * jittered pause that grows with each loss (jitter spreads a herd of writers, e.g. many retries
 * attaching at once, over time). Any other error, or the last conflict, is thrown.
 */
export async function retryOnConflict<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  onConflict?: (error: WrongExpectedVersionError, attemptNumber: number) => void,
): Promise<T> {
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError) || attemptNumber >= CONFLICT_ATTEMPTS) throw error;
      onConflict?.(error, attemptNumber);
      await sleep(Math.random() * Math.min(2 ** attemptNumber, 50));
    }
  }
}
