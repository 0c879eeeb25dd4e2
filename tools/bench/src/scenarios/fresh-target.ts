import { remoteTestTarget } from '@onceport/test-target';

/**
 * Empties the target's effect ledger and turns its own idempotency off, so every request that
 * reaches it counts: a duplicate send can't hide behind the target replaying its first answer.
 */
export async function freshTarget(targetUrl: string): Promise<void> {
  const target = remoteTestTarget(targetUrl);
  await target.reset();
  await target.setBehavior({ route: '*', honour_idempotency: false });
}
