import { type DynamicModule, Module } from '@nestjs/common';
import { type OnceportRuntime, RUNTIME } from '@onceport/runtime';
import { SERVICE_LOG } from '@onceport/service-kit';
import { ApprovalDesk } from './approvals/approval-desk';
import { ApprovalExpiryLifecycle, ApprovalExpirySweep } from './approvals/approval-expiry.sweep';
import { ApprovalsAdminController } from './approvals/approvals-admin.controller';
import { executionsReadModel } from './approvals/executions-read-model';
import { AUTHORIZATION_OPTIONS, type AuthorizationOptions } from './authorization.options';
import { AuthorizeExecutionHandler } from './authorize-execution/authorize-execution.handler';
import { ExecutionAcceptedConsumer } from './authorize-execution/execution-accepted.consumer';
import { RevertAdminController } from './revert-execution/revert-admin.controller';
import { VaultAdminController } from './vault/vault-admin.controller';
import { QuarantineAdminController } from './quarantine/quarantine-admin.controller';

/**
 * The authorization service (DESIGN.md §6, §8): decides every accepted execution and owns the
 * vault lock, session grants, approvals (and their expiry) and the revert of an execution. Needs `RuntimeModule` (the process's runtime) in the same app.
 *
 * @example AuthorizationModule.forRoot(await loadAuthorizationOptions(env, base.ONCEPORT_CONTRACTS_DIR))
 */
@Module({})
export class AuthorizationModule {
  static forRoot(options: AuthorizationOptions): DynamicModule {
    return {
      module: AuthorizationModule,
      controllers: [
        VaultAdminController,
        ApprovalsAdminController,
        RevertAdminController,
        QuarantineAdminController,
        ExecutionAcceptedConsumer,
      ],
      providers: [
        { provide: AUTHORIZATION_OPTIONS, useValue: options },
        { provide: SERVICE_LOG, useValue: options.log },
        {
          provide: AuthorizeExecutionHandler,
          inject: [RUNTIME],
          useFactory: (runtime: OnceportRuntime) =>
            new AuthorizeExecutionHandler({
              commands: runtime.commands,
              directory: options.directory,
              contracts: options.contracts,
              approvalTtlMs: options.approvalTtlMs,
              tracer: runtime.tracer,
              log: options.log,
              onAppended: () => runtime.delivery.nudge(),
            }),
        },
        {
          provide: ApprovalDesk,
          inject: [RUNTIME],
          useFactory: (runtime: OnceportRuntime) =>
            new ApprovalDesk({
              db: runtime.pool,
              readModel: executionsReadModel(runtime.pool, options.log),
              commands: runtime.commands,
              contracts: options.contracts,
              policyVersion: () => options.directory.policyVersion,
              mayUse: (actor, tool) => options.directory.mayUse(actor, tool),
              log: options.log,
              onAppended: () => runtime.delivery.nudge(),
            }),
        },
        {
          provide: ApprovalExpirySweep,
          inject: [ApprovalDesk],
          useFactory: (desk: ApprovalDesk) => new ApprovalExpirySweep(desk, options.approvalSweepMs, options.log),
        },
        ApprovalExpiryLifecycle,
      ],
    };
  }
}
