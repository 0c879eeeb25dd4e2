import { Pool } from 'pg';
import { PreparingClient } from './prepared-statements';

/**
 * Connections a service's pool may open when `ONCEPORT_PG_POOL_MAX` does not say: the least a service
 * needs (its subscriptions hold some), because more did not buy work, only backends. At 256 agents,
 * 20 per service kept ~90 backends busy on two cores: PostgreSQL spent 9.3 ms of CPU per execution
 * (a tenth of it faulting shared memory into each backend), 6.5 ms with 8 (bench pool-18-*).
 */
export const DEFAULT_POOL_MAX = 8;

/** What `ONCEPORT_PG_POOL_MAX` may say: below 8 a service's work waits on its subscriptions' connections. */
export const POOL_MAX_RANGE = { min: 8, max: 1_000 } as const;

/** How a process's connections are named in `pg_stat_activity`: `onceport-intake`, `onceport-intake-orm`, `onceport` (npm start). */
export function connectionNameOf(serviceName: string, suffix?: string): string {
  const service = serviceName === 'onceport' || serviceName.startsWith('onceport-') ? serviceName : `onceport-${serviceName}`;
  return suffix ? `${service}-${suffix}` : service;
}

export interface PoolSettings {
  /** Connections the pool may open (default {@link DEFAULT_POOL_MAX}). */
  readonly max?: number;
  /** Shows in `pg_stat_activity`, so an operator can tell whose connections they are. */
  readonly applicationName?: string;
}

/**
 * The process's pg pool (the event store's append path and every plain-SQL port stand on it). Its
 * parameterised queries are prepared once per connection ({@link PreparingClient}); the services
 * need session-level state anyway (advisory locks, LISTEN), so a pooler in front runs in session mode.
 */
export function createPool(databaseUrl: string, settings: PoolSettings = {}): Pool {
  const { max = DEFAULT_POOL_MAX, applicationName } = settings;
  const pool = new Pool({
    connectionString: databaseUrl,
    max,
    ...(applicationName ? { application_name: applicationName } : {}),
    Client: PreparingClient,
  });
  // A server restart kills every connection. An idle pooled client reports it on the pool, a
  // checked-out one between two statements on itself: neither may crash the process. The query in
  // flight still fails (and is retried by its caller), and the pool opens fresh connections.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
