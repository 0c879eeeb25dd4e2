import { type DynamicModule, Module } from '@nestjs/common';
import { type OnceportRuntime, RUNTIME } from '@onceport/runtime';
import { AUTHORIZATION_OPTIONS, type AuthorizationOptions } from './authorization.options';
import { AuthorizeExecutionHandler } from './authorize-execution/authorize-execution.handler';
import { ExecutionAcceptedConsumer } from './authorize-execution/execution-accepted.consumer';
import { SessionGrants } from './sessions/session-grants';
import { VaultAdminController } from './vault/vault-admin.controller';
import { VaultRepository } from './vault/vault.repository';

/**
 * The authorization service (DESIGN.md §6, §8): decides every accepted execution and owns the
 * vault lock and session grants. Needs `RuntimeModule` (the process's runtime) in the same app.
 *
 * @example AuthorizationModule.forRoot(await loadAuthorizationOptions(env, base.ONCEPORT_CONTRACTS_DIR))
 */
@Module({})
export class AuthorizationModule {
  static forRoot(options: AuthorizationOptions): DynamicModule {
    return {
      module: AuthorizationModule,
      controllers: [VaultAdminController],
      providers: [
        { provide: AUTHORIZATION_OPTIONS, useValue: options },
        { provide: VaultRepository, useFactory: (runtime: OnceportRuntime) => new VaultRepository(runtime.store), inject: [RUNTIME] },
        { provide: SessionGrants, useFactory: (runtime: OnceportRuntime) => new SessionGrants(runtime.store), inject: [RUNTIME] },
        {
          provide: AuthorizeExecutionHandler,
          inject: [RUNTIME, VaultRepository, SessionGrants],
          useFactory: (runtime: OnceportRuntime, vault: VaultRepository, sessions: SessionGrants) =>
            new AuthorizeExecutionHandler({
              executions: runtime.executions,
              vault,
              sessions,
              directory: options.directory,
              contracts: options.contracts,
              approvalTtlMs: options.approvalTtlMs,
              tracer: runtime.tracer,
              log: options.log,
              onAppended: () => runtime.delivery.nudge(),
            }),
        },
        ExecutionAcceptedConsumer,
      ],
    };
  }
}
