import 'reflect-metadata';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadEnvConfig } from '@onceport/config';
import { AuthorizationModule } from '@onceport/feature-authorization';
import { DispatcherModule } from '@onceport/feature-dispatcher';
import { IntakeModule } from '@onceport/feature-intake';
import { ReconcilerModule } from '@onceport/feature-reconciler';
import { startEventConsumers } from '@onceport/messaging';
import {
  NestLogger,
  ServiceKitModule,
  ServiceLoggingModule,
  configureLogging,
  hardenHttpServer,
  openServicePorts,
  serviceConfigOf,
} from '@onceport/service-kit';
import { startDemoTarget } from '@onceport/demo-target';
import { printBanner } from './banner';
import { ensureConsoleAssets } from './console/console-assets';
import { startConsoleProcess } from './console/console-process';
import { defaultDataDir, preparePrivateDir } from './data-dir';
import { EMBEDDED_HOST, embeddedEnv, prepareSetup } from './embedded-config';
import { startEmbeddedPostgres } from './embedded-postgres';
import { claimDataDir } from './instance-lock';
import { EX_SOFTWARE, describeStartFailure, portInUse } from './start-failure';

/** The least pool `npm start`'s one process runs with, whatever ONCEPORT_PG_POOL_MAX says (a service alone needs 8). */
const EMBEDDED_MIN_POOL = 20;

/** What a failed start has to undo, last started first, so it leaves no PostgreSQL behind. */
const undo: (() => Promise<void> | void)[] = [];

/**
 * `npm start`: the whole path in one process on embedded defaults — a real PostgreSQL from npm,
 * intake, authorization, dispatcher and reconciler wired together with in-process event delivery (the same
 * interface as JetStream), and the user's contracts and actors, or a demo target, demo contracts and keys.
 */
async function main(): Promise<void> {
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const settings = loadEnvConfig(embeddedEnv, process.env);
  const dataDir = preparePrivateDir(settings.ONCEPORT_DATA_DIR ?? defaultDataDir(process.env), 'ONCEPORT_DATA_DIR');
  const lock = claimDataDir(dataDir, log);
  undo.push(() => lock.release());
  const target = settings.ONCEPORT_CONTRACTS_DIR
    ? null
    : await startDemoTarget({ port: settings.ONCEPORT_DEMO_TARGET_PORT }).catch((error: unknown) => {
        throw portInUse(error, settings.ONCEPORT_DEMO_TARGET_PORT, 'ONCEPORT_DEMO_TARGET_PORT');
      });
  if (target) undo.push(() => target.stop());
  const setup = await prepareSetup(settings, dataDir, process.env, target?.url ?? null, log);
  // The console's page is built (when missing or stale) while PostgreSQL starts; awaited before the console runs.
  const consoleAssetsDir = join(dataDir, 'console-web');
  const consoleAssets = ensureConsoleAssets(consoleAssetsDir);
  consoleAssets.catch(() => undefined); // its failure is reported where it is awaited
  const database = await startEmbeddedPostgres(dataDir, settings.ONCEPORT_EMBEDDED_PG_PORT, log);
  undo.push(() => database.stop());
  const env = { ...setup.config, DATABASE_URL: database.url, PORT: settings.PORT };
  configureLogging({ level: env.LOG_LEVEL });
  // Opened here, not by the kit module: the undo stack closes them when the app cannot be made.
  // One pool for all four services: their subscriptions alone hold about a dozen connections (one each for its leader lock).
  const poolSize = Math.max(env.ONCEPORT_PG_POOL_MAX, EMBEDDED_MIN_POOL);
  const ports = await openServicePorts(serviceConfigOf('onceport', env, { delivery: 'in_process', poolSize }));
  undo.push(() => ports.close());
  // The dispatcher and the reconciler resolve credentials from the setup's environment, not from a mutated process.env.
  const features = { env, contractsDir: setup.contracts.dir, environment: setup.env };
  @Module({
    imports: [
      ServiceLoggingModule.forRoot('onceport'),
      ServiceKitModule.forPorts(ports),
      IntakeModule.forRoot(features),
      AuthorizationModule.forRoot(features),
      DispatcherModule.forRoot(features),
      ReconcilerModule.forRoot(features),
    ],
  })
  class EmbeddedModule {}
  // abortOnError false: a failed start rejects (and is undone) instead of exiting 1.
  const app = await NestFactory.create(EmbeddedModule, { bufferLogs: true, bodyParser: false, abortOnError: false });
  app.useLogger(app.get(NestLogger));
  undo.push(() => app.close());
  hardenHttpServer(app, env);
  // The same @ConsumeEvents handlers as the services, fed by the in-process delivery (no broker).
  await startEventConsumers(app, ports.delivery);
  await app.listen(settings.PORT, EMBEDDED_HOST).catch((error: unknown) => {
    throw portInUse(error, settings.PORT, 'PORT');
  });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : settings.PORT;
  const url = `http://127.0.0.1:${port}`;
  await consoleAssets;
  const consoleApp = await startConsoleProcess({
    gatewayUrl: url,
    host: EMBEDDED_HOST,
    port: settings.ONCEPORT_CONSOLE_PORT,
    assetsDir: consoleAssetsDir,
    env: process.env,
    log,
  });
  undo.push(() => consoleApp.stop());
  printBanner({ url, consoleUrl: consoleApp.url, setup, targetUrl: target?.url ?? null, dataDir, clusterDir: database.clusterDir });
  // Stop in order: the console (it calls the services), consumers finish their in-flight work (Nest
  // shutdown hooks), then the store, the demo target and PostgreSQL; the data dir is released last.
  const stopAll = async (): Promise<void> => {
    undo.length = 0;
    await consoleApp.stop();
    await app.close();
    await ports.close();
    await target?.stop();
    await database.stop();
    lock.release();
    process.exit(0);
  };
  // Once, however many signals come: `npm start` stopped by a signal to its process group gets it
  // from the group and again from npm, and a second default SIGTERM would end the stop half-way.
  let stopping: Promise<void> | null = null;
  const shutdown = (): void => {
    stopping ??= stopAll().catch((error: unknown) => {
      process.stderr.write(`onceport: while stopping: ${error instanceof Error ? error.message : String(error)}\n`);
      lock.release();
      process.exit(EX_SOFTWARE);
    });
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.on('SIGHUP', shutdown);
}

main().catch(async (error: unknown) => {
  const { message, exitCode } = describeStartFailure(error);
  process.stderr.write(`onceport: ${message}\n`);
  for (const step of undo.reverse()) {
    try {
      await step();
    } catch (cleanupError) {
      process.stderr.write(
        `onceport: while stopping after the failed start: ${cleanupError instanceof Error ? cleanupError.message : String(cleanupError)}\n`,
      );
    }
  }
  process.exit(exitCode);
});
