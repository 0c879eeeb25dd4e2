import { type INestApplication, Module } from '@nestjs/common';
import type { ActorDirectory } from '@onceport/config';
import { NestFactory } from '@nestjs/core';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { startEventConsumers } from '@onceport/messaging';
import { type ServicePorts, ServiceKitModule, openServicePorts } from '@onceport/service-kit';
import { AuthorizationModule } from '../authorization.module';
import { demoContracts, silentLog, testDirectory } from './authorization-fixtures';

export interface AuthorizationService {
  readonly db: TestDatabase;
  readonly runtime: ServicePorts;
  readonly app: INestApplication;
  /** `http://127.0.0.1:<port>`, where the service listens. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The authorization module as its service wires it — runtime, consumer, admin API — over a fresh
 * database of the real PostgreSQL and in-process delivery, listening on a free port.
 */
export async function startAuthorizationService(options: { directory?: ActorDirectory } = {}): Promise<AuthorizationService> {
  const db = await createTestDatabase();
  const runtime = await openServicePorts({
    serviceName: 'authorization-test',
    databaseUrl: db.url,
    natsUrl: 'nats://127.0.0.1:1',
    delivery: 'in_process',
    log: silentLog,
  });
  const feature = AuthorizationModule.forOptions({
    directory: options.directory ?? testDirectory(),
    contracts: await demoContracts(),
    approvalTtlMs: 60_000,
    approvalSweepMs: 60_000,
    log: silentLog,
  });
  @Module({ imports: [ServiceKitModule.forPorts(runtime), feature] })
  class TestService {}
  const app = await NestFactory.create(TestService, { logger: false, bodyParser: false });
  await startEventConsumers(app, runtime.delivery);
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  return {
    db,
    runtime,
    app,
    url,
    async close() {
      await app.close();
      await runtime.close();
      await db.drop();
    },
  };
}
