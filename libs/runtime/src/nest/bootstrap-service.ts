import 'reflect-metadata';
import { type DynamicModule, Module, type OnApplicationShutdown, Inject } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ActorsFileError, EnvConfigError, loadEnvConfig, loadToolContracts } from '@onceport/config';
import { MigrationSetupError, type SchemaStep } from '@onceport/event-store';
import { startEventConsumers } from '@onceport/messaging';
import { ToolContractError } from '@onceport/domain';
import {
  NestLogger,
  ServiceLoggingModule,
  type ServerLimitsEnv,
  ackWaitOf,
  configureLogging,
  hardenHttpServer,
  migrationEnvShape,
  runtimeEnvShape,
} from '@onceport/service-kit';
import { z } from 'zod';
import { migrate } from '../database';
import { OnceportRuntime } from '../onceport-runtime';
import { RUNTIME, RuntimeModule } from './runtime.module';

export interface ServiceDefinition<Shape extends z.ZodRawShape> {
  readonly serviceName: string;
  readonly defaultPort: number;
  /** The service's own variables, validated together with the runtime's. */
  readonly envShape: Shape;
  /** Tables only this service uses, applied by the migrate-only init step as well as at start. */
  readonly migrations?: readonly SchemaStep[];
  readonly module: (
    runtime: OnceportRuntime,
    env: z.output<z.ZodObject<Shape>>,
    base: RuntimeEnv,
  ) => DynamicModule | Promise<DynamicModule>;
}

export interface RuntimeEnv extends ServerLimitsEnv {
  readonly DATABASE_URL: string;
  readonly NATS_URL: string;
  readonly ONCEPORT_CONTRACTS_DIR: string;
  readonly LOG_LEVEL: string;
  readonly ONCEPORT_DELIVERY: 'jetstream' | 'in_process';
  readonly ONCEPORT_STREAM_REPLICAS: number;
  readonly ONCEPORT_QUARANTINE_AFTER_ATTEMPTS: number;
  readonly ONCEPORT_ACK_WAIT_MS?: number | undefined;
  readonly ONCEPORT_ACK_WAIT_MAX_MS?: number | undefined;
  readonly PORT: number;
  readonly HOST: string;
}

@Module({})
class RuntimeLifecycle implements OnApplicationShutdown {
  constructor(@Inject(RUNTIME) private readonly runtime: OnceportRuntime) {}

  /** Runs after every service stopped its consumers (they do so in beforeApplicationShutdown). */
  async onApplicationShutdown(): Promise<void> {
    await this.runtime.close();
  }
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
  const runtime = await OnceportRuntime.create({
    serviceName: definition.serviceName,
    databaseUrl: env.DATABASE_URL,
    natsUrl: env.NATS_URL,
    delivery: env.ONCEPORT_DELIVERY,
    streamReplicas: env.ONCEPORT_STREAM_REPLICAS,
    ackWait: ackWaitOf(env),
    quarantineAfterAttempts: env.ONCEPORT_QUARANTINE_AFTER_ATTEMPTS,
  }).catch((error: unknown) => {
    // The service role on a schema the owner has not migrated yet: say which step to run.
    if (!(error instanceof MigrationSetupError)) throw error;
    process.stderr.write(`${definition.serviceName}: ${error.message}\n`);
    process.exit(78); // EX_CONFIG
  });
  let feature: DynamicModule;
  try {
    feature = await definition.module(runtime, own, env);
  } catch (error) {
    // A broken contract or actors file is the operator's to fix: the message names the file, the
    // field and the fix; exit like a bad variable does.
    if (!(
      error instanceof ToolContractError ||
      error instanceof ActorsFileError ||
      error instanceof EnvConfigError ||
      error instanceof MigrationSetupError
    ))
      throw error;
    process.stderr.write(`${definition.serviceName}: ${error.message}\n`);
    await runtime.close();
    process.exit(78); // EX_CONFIG
  }
  @Module({
    imports: [ServiceLoggingModule.forRoot(definition.serviceName), RuntimeModule.forRoot(runtime), feature],
    providers: [RuntimeLifecycle],
  })
  class ServiceModule {}
  const app = await NestFactory.create(ServiceModule, { bufferLogs: true, bodyParser: false });
  app.useLogger(app.get(NestLogger));
  // useProcessExit: a clean stop exits 0 instead of re-raising the signal (which looks like a kill).
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  hardenHttpServer(app, env, runtime.log);
  // The @ConsumeEvents handlers take events once every module is initialized; app.close() stops them before the runtime closes.
  await startEventConsumers(app, runtime.delivery);
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
