import { Pool } from 'pg';
import { StoreSubscription } from './store-subscription';

/**
 * A replica in its own process, so a test can freeze it with SIGSTOP: it leads an exclusive
 * subscription and prints `read <stream>` per event and `error <code>` per error it is told of.
 */
const pool = new Pool({ connectionString: process.env['DATABASE_URL'], max: 4 });
const subscription = new StoreSubscription(
  pool,
  {
    subscriptionId: process.env['SUBSCRIPTION_ID'] ?? 'leader-child',
    mode: 'at_least_once',
    exclusive: true,
    pollIntervalMs: 50,
    leaderLeaseMs: Number(process.env['LEADER_LEASE_MS']),
    onError: (error) => console.log(`error ${(error as { code?: string }).code ?? String(error)}`),
  },
  async (events) => {
    for (const event of events) console.log(`read ${event.streamId}`);
  },
);
pool.on('error', () => undefined); // an idle pooled connection the server ended; the next checkout makes a new one
subscription.start();
process.on('SIGTERM', () => {
  void subscription
    .stop()
    .then(() => pool.end())
    .then(() => process.exit(0));
});
