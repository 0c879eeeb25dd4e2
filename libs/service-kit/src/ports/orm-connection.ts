import { DEFAULT_POOL_MAX, type OrmSettings, connectionNameOf } from '@onceport/event-store';
import type { ServiceConfig } from './service-config';

/**
 * Where a feature's own ORM connects, beside the process's pg pool: `share` of the pool's size
 * (`ONCEPORT_PG_POOL_MAX`, so one setting budgets a process's connections), named after the service.
 *
 * @example openOrm({ ...ormConnectionOf(config, 1 / 2), entities: intakeEntities })
 */
export function ormConnectionOf(
  config: ServiceConfig,
  share: number,
): Required<Pick<OrmSettings, 'databaseUrl' | 'poolSize' | 'applicationName'>> {
  return {
    databaseUrl: config.databaseUrl,
    poolSize: Math.max(2, Math.ceil((config.poolSize ?? DEFAULT_POOL_MAX) * share)),
    applicationName: connectionNameOf(config.serviceName, 'orm'),
  };
}
