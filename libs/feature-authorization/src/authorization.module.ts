import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import type { Tracer } from '@opentelemetry/api';
import type { CommandHandler, EventStore } from '@onceport/event-store';
import type { EventDelivery } from '@onceport/messaging';
import {
  COMMAND_HANDLER,
  EVENT_DELIVERY,
  EVENT_STORE,
  type FeatureModuleOptions,
  PG_POOL,
  SERVICE_LOG,
  TRACER,
} from '@onceport/service-kit';
import type { Pool } from 'pg';
import { ApprovalDesk } from './approvals/approval-desk';
import { ApprovalExpiryLifecycle, ApprovalExpirySweep } from './approvals/approval-expiry.sweep';
import { ApprovalsAdminController } from './approvals/approvals-admin.controller';
import { CampaignDesk } from './approvals/campaign-desk';
import { CampaignsAdminController } from './approvals/campaigns-admin.controller';
import { executionsReadModel } from './approvals/executions-read-model';
import { UnfoldableExecutions } from './approvals/unfoldable-executions';
import { AUTHORIZATION_OPTIONS, type AuthorizationOptions } from './authorization.options';
import { type AuthorizationEnv, loadAuthorizationOptions } from './authorization.settings';
import { AuthorizeExecutionHandler } from './authorize-execution/authorize-execution.handler';
import { ExecutionAcceptedConsumer } from './authorize-execution/execution-accepted.consumer';
import { RevertAdminController } from './revert-execution/revert-admin.controller';
import { VaultAdminController } from './vault/vault-admin.controller';
import { QuarantineAdminController } from './quarantine/quarantine-admin.controller';

/**
 * The authorization service (DESIGN.md §6, §8): decides every accepted execution and owns the
 * vault lock, session grants, approvals (and their expiry) and the revert of an execution. Needs
 * `ServiceKitModule` (the process's ports) in the same app.
 *
 * @example AuthorizationModule.forRoot({ env, contractsDir })
 */
@Module({})
export class AuthorizationModule {
  /** The actors file and the contracts are loaded while the app is made (a broken one stops the start, named). */
  static forRoot({ env, contractsDir }: FeatureModuleOptions<AuthorizationEnv>): DynamicModule {
    return AuthorizationModule.module({ provide: AUTHORIZATION_OPTIONS, useFactory: () => loadAuthorizationOptions(env, contractsDir) });
  }

  /** Options a test made itself (its own directory, contracts and log). */
  static forOptions(options: AuthorizationOptions): DynamicModule {
    return AuthorizationModule.module({ provide: AUTHORIZATION_OPTIONS, useValue: options });
  }

  private static module(options: Provider): DynamicModule {
    return {
      module: AuthorizationModule,
      controllers: [
        VaultAdminController,
        ApprovalsAdminController,
        CampaignsAdminController,
        RevertAdminController,
        QuarantineAdminController,
        ExecutionAcceptedConsumer,
      ],
      providers: [
        options,
        { provide: SERVICE_LOG, inject: [AUTHORIZATION_OPTIONS], useFactory: (loaded: AuthorizationOptions) => loaded.log },
        {
          provide: AuthorizeExecutionHandler,
          inject: [AUTHORIZATION_OPTIONS, COMMAND_HANDLER, TRACER, EVENT_DELIVERY],
          useFactory: (loaded: AuthorizationOptions, commands: CommandHandler, tracer: Tracer, delivery: EventDelivery) =>
            new AuthorizeExecutionHandler({
              commands,
              directory: loaded.directory,
              contracts: loaded.contracts,
              approvalTtlMs: loaded.approvalTtlMs,
              tracer,
              log: loaded.log,
              onAppended: () => delivery.nudge(),
            }),
        },
        {
          provide: ApprovalDesk,
          inject: [AUTHORIZATION_OPTIONS, COMMAND_HANDLER, PG_POOL, EVENT_STORE, EVENT_DELIVERY],
          useFactory: (loaded: AuthorizationOptions, commands: CommandHandler, pool: Pool, store: EventStore, delivery: EventDelivery) =>
            new ApprovalDesk({
              db: pool,
              readModel: executionsReadModel(pool, loaded.log),
              commands,
              contracts: loaded.contracts,
              policyVersion: () => loaded.directory.policyVersion,
              mayUse: (actor, tool) => loaded.directory.mayUse(actor, tool),
              log: loaded.log,
              unfoldable: new UnfoldableExecutions(pool, store, commands, loaded.log),
              onAppended: () => delivery.nudge(),
            }),
        },
        {
          provide: CampaignDesk,
          inject: [AUTHORIZATION_OPTIONS, COMMAND_HANDLER, ApprovalDesk, EVENT_DELIVERY],
          useFactory: (loaded: AuthorizationOptions, commands: CommandHandler, desk: ApprovalDesk, delivery: EventDelivery) =>
            new CampaignDesk({ commands, desk, contracts: loaded.contracts, log: loaded.log, onAppended: () => delivery.nudge() }),
        },
        {
          provide: ApprovalExpirySweep,
          inject: [AUTHORIZATION_OPTIONS, ApprovalDesk],
          useFactory: (loaded: AuthorizationOptions, desk: ApprovalDesk) =>
            new ApprovalExpirySweep(desk, loaded.approvalSweepMs, loaded.log),
        },
        ApprovalExpiryLifecycle,
      ],
    };
  }
}
