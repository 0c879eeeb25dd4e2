import 'reflect-metadata';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadEnvConfig } from '@onceport/config';
import { AuthorizationModule, authorizationEnvShape, loadAuthorizationOptions } from '@onceport/feature-authorization';
import { DispatcherModule, dispatcherEnvShape } from '@onceport/feature-dispatcher';
import { IntakeModule, intakeEnvShape } from '@onceport/feature-intake';
import { ReconcilerModule, reconcilerEnvShape } from '@onceport/feature-reconciler';
import { OnceportRuntime, RuntimeModule, hardenHttpServer, runtimeEnvShape } from '@onceport/runtime';
import { startTestTarget } from '@onceport/test-target';
import { z } from 'zod';
import { printBanner } from './banner';
import { prepareDemo } from './demo-setup';
import { startEmbeddedPostgres } from './embedded-postgres';

const embeddedEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  ONCEPORT_DATA_DIR: z.string().default(join(tmpdir(), 'onceport-embedded')),
  ONCEPORT_EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  ONCEPORT_DEMO_TARGET_PORT: z.coerce.number().int().min(0).max(65535).default(8787),
});

/**
 * `npm start`: the whole path in one process on embedded defaults — a real PostgreSQL from npm,
 * intake, authorization, dispatcher and reconciler wired together with in-process event delivery (the same
 * interface as JetStream), a demo HTTP target and demo contracts.
 */
async function main(): Promise<void> {
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const settings = loadEnvConfig(embeddedEnv, process.env);
  const database = await startEmbeddedPostgres(settings.ONCEPORT_DATA_DIR, settings.ONCEPORT_EMBEDDED_PG_PORT, log);
  const target = await startTestTarget({ port: settings.ONCEPORT_DEMO_TARGET_PORT });
  const demo = prepareDemo(settings.ONCEPORT_DATA_DIR, target.url);
  const env: Record<string, string | undefined> = {
    ONCEPORT_CREDENTIAL_DEPLOY_API: 'demo-deploy-token',
    ONCEPORT_CREDENTIAL_MAIL_API: 'demo-mail-token',
    ONCEPORT_CREDENTIAL_PAYMENTS_LIVE: 'demo-payments-token',
    ONCEPORT_CREDENTIAL_CI_READONLY: 'demo-ci-token',
    ...process.env,
    DATABASE_URL: database.url,
    ONCEPORT_DELIVERY: 'in_process',
    ONCEPORT_CONTRACTS_DIR: demo.contractsDir,
    ONCEPORT_ACTORS_FILE: demo.actorsFile,
    ONCEPORT_HMAC_KEYS: demo.hmacKeys,
  };
  Object.assign(process.env, env); // the dispatcher resolves credentials from the environment
  const base = loadEnvConfig(z.object(runtimeEnvShape), env);
  const runtime = await OnceportRuntime.create({ serviceName: 'onceport', databaseUrl: database.url, natsUrl: base.NATS_URL, delivery: 'in_process' });
  const features = [
    await IntakeModule.forRoot(runtime, loadEnvConfig(z.object(intakeEnvShape), env), demo.contractsDir),
    AuthorizationModule.forRoot(await loadAuthorizationOptions(loadEnvConfig(z.object(authorizationEnvShape), env), demo.contractsDir)),
    await DispatcherModule.forRoot({ runtime, env: loadEnvConfig(z.object(dispatcherEnvShape), env), base: { ...base, PORT: settings.PORT } }),
    await ReconcilerModule.forRoot(runtime, loadEnvConfig(z.object(reconcilerEnvShape), env), demo.contractsDir),
  ];
  @Module({ imports: [RuntimeModule.forRoot(runtime), ...features] })
  class EmbeddedModule {}
  const app = await NestFactory.create(EmbeddedModule, { logger: ['error', 'warn'], bodyParser: false });
  hardenHttpServer(app, base);
  await app.listen(settings.PORT, '127.0.0.1');
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : settings.PORT;
  printBanner({ url: `http://127.0.0.1:${port}`, agentKey: demo.agentKey, adminKey: demo.adminKey, targetUrl: target.url, dataDir: settings.ONCEPORT_DATA_DIR });
  // Stop in order: consumers finish their in-flight work (Nest shutdown hooks), then the store,
  // the demo target and PostgreSQL.
  const shutdown = async (): Promise<void> => {
    await app.close();
    await runtime.close();
    await target.stop();
    await database.stop();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
}

main().catch((error: unknown) => {
  process.stderr.write(`onceport: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
