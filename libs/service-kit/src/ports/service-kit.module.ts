import { type DynamicModule, Inject, Injectable, Module, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { EVENT_STORE } from '@onceport/event-store';
import type { EventDelivery } from '@onceport/messaging';
import type { Pool } from 'pg';
import { OpenApiController } from '../api-docs/openapi.controller';
import { HealthModule } from '../health/health.module';
import { portReadinessChecks } from '../health/port-readiness';
import { MetricsController } from '../metrics/metrics.controller';
import { SERVICE_LOG } from '../problems/problem-details.filter';
import type { ServiceConfig } from './service-config';
import { type ServicePorts, openServicePorts } from './service-ports';
import { COMMAND_HANDLER, EVENT_DELIVERY, PG_POOL, RESULT_STORE, SERVICE_CONFIG, TRACER } from './tokens';

const SERVICE_PORTS = Symbol('ONCEPORT_SERVICE_PORTS');
const PORTS_OWNED = Symbol('ONCEPORT_SERVICE_PORTS_OWNED');

/**
 * Closes the ports the module opened. A global module's shutdown hook runs after every other
 * module's, and Nest closes the event transports (the consumers) before any shutdown hook:
 * consumers stop, features close their own parts, then delivery, tracing and the pool.
 */
@Injectable()
class ServicePortsLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(SERVICE_PORTS) private readonly ports: ServicePorts,
    @Inject(PORTS_OWNED) private readonly owned: boolean,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.owned) await this.ports.close();
  }
}

/** Each port under its own token, taken from the one set the process opened. */
const portProviders: Provider[] = [
  { provide: SERVICE_CONFIG, inject: [SERVICE_PORTS], useFactory: (ports: ServicePorts) => ports.config },
  { provide: PG_POOL, inject: [SERVICE_PORTS], useFactory: (ports: ServicePorts) => ports.pool },
  { provide: EVENT_STORE, inject: [SERVICE_PORTS], useFactory: (ports: ServicePorts) => ports.store },
  { provide: COMMAND_HANDLER, inject: [SERVICE_PORTS], useFactory: (ports: ServicePorts) => ports.commands },
  { provide: RESULT_STORE, inject: [SERVICE_PORTS], useFactory: (ports: ServicePorts) => ports.results },
  { provide: EVENT_DELIVERY, inject: [SERVICE_PORTS], useFactory: (ports: ServicePorts) => ports.delivery },
  { provide: TRACER, inject: [SERVICE_PORTS], useFactory: (ports: ServicePorts) => ports.tracer },
  { provide: SERVICE_LOG, inject: [SERVICE_PORTS], useFactory: (ports: ServicePorts) => ports.log },
  ServicePortsLifecycle,
];

const exported = [SERVICE_CONFIG, PG_POOL, EVENT_STORE, COMMAND_HANDLER, RESULT_STORE, EVENT_DELIVERY, TRACER, SERVICE_LOG];

/**
 * What every service stands on, global: the pg pool, the migrated event store, the command
 * handler, the result store, event delivery (started), the tracer, the service log and its config,
 * each under its token (see tokens.ts); `/healthz`, `/readyz` (terminus), `/metrics` and `/openapi.json`.
 *
 * @example imports: [ServiceKitModule.forRoot(serviceConfigOf('intake', env)), IntakeModule.forRoot({ env: own, contractsDir })]
 */
@Module({})
export class ServiceKitModule {
  /** Opens the ports while the app is made (migrations, delivery) and closes them when it stops. */
  static forRoot(config: ServiceConfig): DynamicModule {
    return ServiceKitModule.module([
      { provide: SERVICE_PORTS, useFactory: () => openServicePorts(config) },
      { provide: PORTS_OWNED, useValue: true },
    ]);
  }

  /** Ports a test opened itself (and closes itself): provided the same way, never closed here. */
  static forPorts(ports: ServicePorts): DynamicModule {
    return ServiceKitModule.module([
      { provide: SERVICE_PORTS, useValue: ports },
      { provide: PORTS_OWNED, useValue: false },
    ]);
  }

  private static module(source: Provider[]): DynamicModule {
    return {
      module: ServiceKitModule,
      global: true,
      imports: [
        HealthModule.forRoot({
          inject: [PG_POOL, EVENT_DELIVERY],
          useFactory: (pool: Pool, delivery: EventDelivery) => portReadinessChecks(pool, delivery),
        }),
      ],
      controllers: [MetricsController, OpenApiController],
      providers: [...source, ...portProviders],
      exports: exported,
    };
  }
}
