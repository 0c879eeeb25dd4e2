import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type DynamicModule, Module } from '@nestjs/common';
import { SERVICE_LOG, type ServiceLog, serviceLog } from '@onceport/service-kit';
import { ApprovalsController } from './api/approvals.controller';
import { ConsoleGate } from './api/console-gate';
import { ExecutionsController } from './api/executions.controller';
import { ReviewsController } from './api/reviews.controller';
import { RunsController } from './api/runs.controller';
import { VaultController } from './api/vault.controller';
import { AssetsController } from './assets/assets.controller';
import { CONSOLE_ENV, type ConsoleEnv } from './console-env';
import { ASSETS_DIR } from './console.tokens';
import { LiveController } from './live/live.controller';
import { SessionController } from './session/session.controller';
import { SessionStore } from './session/session-store';
import { CONSOLE_OAUTH, consoleOAuthOf } from './oauth/console-oauth';
import { OAuthSignInController } from './oauth/oauth-sign-in.controller';
import { SignInTransactions } from './oauth/sign-in-transactions';
import { UpstreamClient } from './upstream/upstream-client';

/**
 * Where `nx build console` puts the front end: `dist/console/web` of the workspace when running the
 * sources, `web` beside the compiled server in a build (dist/console/apps/console/src → dist/console/web).
 */
export function defaultAssetsDir(): string {
  const inBuild = join(__dirname, '../../../web');
  return existsSync(join(inBuild, 'index.html')) ? inBuild : join(__dirname, '../../../dist/console/web');
}

/** The console: sign-in, the pages' API (each call passed to a service with the operator's key), the live feed, the front end. */
@Module({})
export class ConsoleModule {
  static forRoot(env: ConsoleEnv): DynamicModule {
    return {
      module: ConsoleModule,
      controllers: [
        SessionController,
        OAuthSignInController,
        ApprovalsController,
        VaultController,
        ReviewsController,
        RunsController,
        ExecutionsController,
        LiveController,
        AssetsController,
      ],
      providers: [
        { provide: CONSOLE_ENV, useValue: env },
        { provide: ASSETS_DIR, useValue: env.ONCEPORT_CONSOLE_ASSETS_DIR ?? defaultAssetsDir() },
        { provide: SERVICE_LOG, useValue: serviceLog('console') },
        { provide: SessionStore, useValue: new SessionStore(env.ONCEPORT_CONSOLE_SESSION_IDLE_MS) },
        { provide: SignInTransactions, useValue: new SignInTransactions() },
        {
          provide: CONSOLE_OAUTH,
          inject: [SessionStore, SERVICE_LOG],
          useFactory: (sessions: SessionStore, log: ServiceLog) => consoleOAuthOf(env, sessions, log),
        },
        {
          provide: UpstreamClient,
          useValue: new UpstreamClient({
            intake: env.ONCEPORT_INTAKE_URL,
            authorization: env.ONCEPORT_AUTHORIZATION_URL,
            reconciler: env.ONCEPORT_RECONCILER_URL,
          }),
        },
        ConsoleGate,
      ],
    };
  }
}
