import type { EventDelivery } from '@onceport/messaging';
import type { Pool } from 'pg';
import type { ReadinessCheck } from './readiness-check';

/** Readiness of a process's ports: the database answers and event delivery is connected. */
export function portReadinessChecks(pool: Pool, delivery: EventDelivery): readonly ReadinessCheck[] {
  return [
    {
      name: 'database',
      probe: async () => {
        await pool.query('SELECT 1').catch((error: unknown) => {
          throw new Error(`unavailable: ${(error as Error).message}`);
        });
      },
    },
    {
      name: 'delivery',
      probe: async () => {
        if (!delivery.isReady()) throw new Error('disconnected');
      },
    },
  ];
}
