import type { PoolClient } from 'pg';

/** PostgreSQL's code for "unrecognized configuration parameter" (servers before 14 lack the timeout). */
const UNDEFINED_OBJECT = '42704';

/**
 * Bounds how long a frozen leader can keep its session-level advisory lock. A SIGSTOPped or
 * partitioned process keeps its TCP connection, so the lock would otherwise be held until it
 * thaws. The server ends a session idle longer than `idle_session_timeout` (which releases the
 * lock); a live leader sends a heartbeat three times per lease, so only a leader that stopped
 * running loses it. Returns a function that stops the heartbeat.
 *
 * A leader that thaws after losing the lease finds its connection closed at its next query (its
 * client emits `error`); a batch it was handling may be handed on twice, which at-least-once
 * readers already tolerate and transactional readers fence by checkpoint.
 */
export async function holdLeaderLease(
  client: PoolClient,
  leaseMs: number,
  onHeartbeatFailed: (error: unknown) => void,
): Promise<() => void> {
  try {
    await client.query("SELECT set_config('idle_session_timeout', $1, false)", [`${Math.max(1, Math.round(leaseMs))}ms`]);
  } catch (error) {
    // Before PostgreSQL 14 there is no server-side idle limit: the lock lives as long as the session.
    if ((error as { code?: string }).code === UNDEFINED_OBJECT) return () => undefined;
    throw error;
  }
  let beating = false;
  const heartbeat = setInterval(
    () => {
      if (beating) return;
      beating = true;
      client
        .query('SELECT 1')
        .catch(onHeartbeatFailed)
        .finally(() => {
          beating = false;
        });
    },
    Math.max(1, Math.floor(leaseMs / 3)),
  );
  heartbeat.unref();
  return () => clearInterval(heartbeat);
}
