import type { Pool, PoolClient } from 'pg';
import { leadLockName } from '../subscription/store-subscription';

/**
 * Takes the lead of an `exclusive` subscription as another process would, so the one under test
 * stands by; `release(true)` ends the session and lets the lead go.
 */
export async function holdSubscriptionLead(pool: Pool, subscriptionId: string): Promise<PoolClient> {
  const holder = await pool.connect();
  await holder.query('SELECT pg_advisory_lock(hashtext($1))', [leadLockName(subscriptionId)]);
  return holder;
}
