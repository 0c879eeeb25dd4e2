import 'reflect-metadata';
import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ActorsFileError, EnvConfigError, loadEnvConfig, loadToolContracts } from '@onceport/config';
import { MigrationSetupError, type SchemaStep } from '@onceport/event-store';
import { type EventDelivery, startEventConsumers } from '@onceport/messaging';
import { ToolContractError } from '@onceport/domain';
import { z } from 'zod';
import { migrate } from '../database/service-migrations';
import { hardenHttpServer } from '../http/server-limits';
import { NestLogger, ServiceLoggingModule } from '../logging/nest-logging.module';
import { type ServiceLog, configureLogging } from '../logging/service-logger';
import { serviceConfigOf } from '../ports/service-config';
import { ServiceKitModule } from '../ports/service-kit.module';
import { EVENT_DELIVERY } from '../ports/tokens';
import { SERVICE_LOG } from '../problems/problem-details.filter';
import { type RuntimeEnv, migrationEnvShape, runtimeEnvShape } from '../runtime-env';
import type { FeatureModuleOptions } from './feature-options';

export interface ServiceDefinition<Shape extends z.ZodRawShape> {
  readonly serviceName: string;
  readonly defaultPort: number;
  /** The service's own variables, validated together with the kit's. */
  readonly envShape: Shape;
  /** Tables only this service uses, applied by the migrate-only init step as well as at start. */
  readonly migrations?: readonly SchemaStep[];
  /** The feature's `forRoot`: synchronous; its loading (contracts, actors, ORM, own migrations) runs while the app is made. */
  readonly module: (options: FeatureModuleOptions<z.output<z.ZodObject<Shape>>>) => DynamicModule;
}

/** What the operator has to fix (a variable, a contract or actors file, a migration to run as the owner): exit 78, not a crash. */
function isConfigError(error: unknown): error is Error {
  return (
    error instanceof ToolContractError ||
    error instanceof ActorsFileError ||
    error instanceof EnvConfigError ||
    error instanceof MigrationSetupError
  );
}

/**
 * Starts one service as its own process: env validated once (a bad variable stops the start with
 * its name), runtime up (migrations, delivery), HTTP with /healthz and /readyz, and a graceful
 * stop on SIGTERM/SIGINT: consumers stop taking work, in-flight work finishes, connections close.
 */
export async function bootstrapService<Shape extends z.ZodRawShape>(definition: ServiceDefinition<Shape>): Promise<void> {
  if (process.env['ONCEPORT_MIGRATE_ONLY'] === 'true') await migrateOnly(definition);
  const baseSchema = z.object({ ...runtimeEnvShape, PORT: z.coerce.number().int().min(0).max(65535).default(definition.defaultPort) });
  let env: RuntimeEnv;
  let own: z.output<z.ZodObject<Shape>>;
  try {
    // One schema for the error message, so a start reports every bad variable at once.
    loadEnvConfig(z.object({ ...baseSchema.shape, ...definition.envShape }), process.env);
    env = loadEnvConfig(baseSchema, process.env);
    own = loadEnvConfig(z.object(definition.envShape), process.env);
  } catch (error) {
    process.stderr.write(`${definition.serviceName}: ${(error as Error).message}\n`);
    process.exit(78); // EX_CONFIG
  }
  configureLogging({ level: env.LOG_LEVEL });
  try {
    // Before any connection: a broken contract file is reported even while PostgreSQL or NATS is down.
    await loadToolContracts(env.ONCEPORT_CONTRACTS_DIR);
  } catch (error) {
    if (!(error instanceof ToolContractError)) throw error;
    process.stderr.write(`${definition.serviceName}: ${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  let feature: DynamicModule;
  try {
    feature = definition.module({ env: own, contractsDir: env.ONCEPORT_CONTRACTS_DIR, environment: process.env });
  } catch (error) {
    if (!isConfigError(error)) throw error;
    process.stderr.write(`${definition.serviceName}: ${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  @Module({
    imports: [
      ServiceLoggingModule.forRoot(definition.serviceName),
      ServiceKitModule.forRoot(serviceConfigOf(definition.serviceName, env)),
      feature,
    ],
  })
  class ServiceModule {}
  // abortOnError false: a failed start rejects here instead of exiting 1 (buffered Nest logs are never flushed).
  const app = await NestFactory.create(ServiceModule, { bufferLogs: true, bodyParser: false, abortOnError: false }).catch(
    (error: unknown) => {
      // The service role on a schema the owner has not migrated yet (say which step to run), or a
      // broken contract or actors file (the message names the file, the field and the fix).
      if (!isConfigError(error)) throw error;
      process.stderr.write(`${definition.serviceName}: ${error.message}\n`);
      process.exit(78); // EX_CONFIG
    },
  );
  app.useLogger(app.get(NestLogger));
  // useProcessExit: a clean stop exits 0 instead of re-raising the signal (which looks like a kill).
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  hardenHttpServer(app, env, app.get<ServiceLog>(SERVICE_LOG));
  // The @ConsumeEvents handlers take events once every module is initialized; app.close() stops them before the ports close.
  await startEventConsumers(app, app.get<EventDelivery>(EVENT_DELIVERY));
  await app.listen(env.PORT, env.HOST);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : env.PORT;
  // Test harnesses and operators read this line to know the service is serving.
  process.stdout.write(`${JSON.stringify({ service: definition.serviceName, event: 'listening', port })}\n`);
}

/**
 * A Kubernetes init container or Job: the schema step alone (no NATS, no HTTP, no service secrets:
 * only the database variables are read), then exit 0. As the owner (`ONCEPORT_MIGRATION_DATABASE_URL`,
 * else `DATABASE_URL`); with `ONCEPORT_DATABASE_SERVICE_ROLE` the services' role gets its grants.
 */
async function migrateOnly<Shape extends z.ZodRawShape>(definition: ServiceDefinition<Shape>): Promise<never> {
  let databaseUrl: string;
  let serviceRole: string | null;
  try {
    const env = loadEnvConfig(z.object(migrationEnvShape), process.env);
    databaseUrl = env.ONCEPORT_MIGRATION_DATABASE_URL ?? env.DATABASE_URL;
    serviceRole = env.ONCEPORT_DATABASE_SERVICE_ROLE ?? null;
  } catch (error) {
    process.stderr.write(`${definition.serviceName}: ${(error as Error).message}\n`);
    process.exit(78); // EX_CONFIG
  }
  let applied: string[];
  try {
    applied = await migrate(databaseUrl, definition.migrations ?? [], { serviceRole });
  } catch (error) {
    // A missing role, or a role that may not migrate: the operator's to fix, named in the message.
    if (!(error instanceof MigrationSetupError)) throw error;
    process.stderr.write(`${definition.serviceName}: ${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  process.stdout.write(`${JSON.stringify({ service: definition.serviceName, event: 'migrated', applied })}\n`);
  process.exit(0);
}
