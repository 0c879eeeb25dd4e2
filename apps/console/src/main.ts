import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { EnvConfigError, loadEnvConfig } from '@onceport/config';
import {
  MetricsController,
  NestLogger,
  SERVICE_LOG,
  ServiceLoggingModule,
  type ServiceLog,
  configureLogging,
  hardenHttpServer,
} from '@onceport/service-kit';
import { Module } from '@nestjs/common';
import { type ConsoleEnv, consoleEnvSchema } from './console-env';
import { consoleHealth } from './console-health';
import { ConsoleModule, defaultAssetsDir } from './console.module';

/** The web console as its own process: no database, no broker; it calls the services' HTTP APIs. */
async function main(): Promise<void> {
  let env: ConsoleEnv;
  try {
    env = loadEnvConfig(consoleEnvSchema, process.env);
  } catch (error) {
    if (!(error instanceof EnvConfigError)) throw error;
    process.stderr.write(`console: ${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  configureLogging({ level: env.LOG_LEVEL });
  // /healthz, /readyz and /metrics (process metrics) as on every service: the same probes and PodMonitor fit it.
  @Module({
    imports: [
      ServiceLoggingModule.forRoot('console'),
      consoleHealth(env.ONCEPORT_CONSOLE_ASSETS_DIR ?? defaultAssetsDir()),
      ConsoleModule.forRoot(env),
    ],
    controllers: [MetricsController],
  })
  class ConsoleAppModule {}
  const app = await NestFactory.create(ConsoleAppModule, { bufferLogs: true, bodyParser: false });
  app.useLogger(app.get(NestLogger));
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  hardenHttpServer(app, env, app.get<ServiceLog>(SERVICE_LOG));
  await app.listen(env.PORT, env.HOST);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : env.PORT;
  // Test harnesses and operators read this line to know the console is serving.
  process.stdout.write(`${JSON.stringify({ service: 'console', event: 'listening', port })}\n`);
}

void main();
