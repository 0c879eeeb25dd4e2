import { type BeforeApplicationShutdown, type DynamicModule, Inject, Injectable, Module } from '@nestjs/common';
import { ActorDirectory, loadToolContracts } from '@onceport/config';
import { type Migration, runMigrations } from '@onceport/event-store';
import { type OnceportRuntime, allMigrations } from '@onceport/runtime';
import { ExecutionWatcher } from './await-outcome/execution-watcher';
import { CallToolService } from './call-tool/call-tool.service';
import { RecordDeliveryService } from './deliver-result/record-delivery.service';
import { INTAKE_DEPENDENCIES, type IntakeDependencies } from './intake-dependencies';
import type { IntakeEnv } from './intake.config';
import { McpController } from './mcp/mcp.controller';
import { mcpTablesMigration } from './mcp/mcp-tables.migration';
import { QueryExecutionService } from './query-execution/query-execution.service';
import { AgentProcessesController } from './rest/agent-processes.controller';
import { RestAgentProcesses } from './rest/agent-processes';
import { restAgentProcessesMigration } from './rest/agent-processes.migration';
import { ExecutionsController } from './rest/executions.controller';

/** Intake's own tables (MCP sessions and stream events, issued REST agent processes). */
export const intakeMigrations: readonly Migration[] = [mcpTablesMigration, restAgentProcessesMigration];

@Injectable()
class IntakeLifecycle implements BeforeApplicationShutdown {
  constructor(@Inject(ExecutionWatcher) private readonly watcher: ExecutionWatcher) {}

  async beforeApplicationShutdown(): Promise<void> {
    await this.watcher.stop();
  }
}

/** The agent's door: MCP at /mcp, REST at /v1/executions (and /v1/agent-processes to get a process id). */
@Module({})
export class IntakeModule {
  static async forRoot(runtime: OnceportRuntime, env: IntakeEnv, contractsDir: string): Promise<DynamicModule> {
    await runMigrations(runtime.pool, [...allMigrations, ...intakeMigrations]);
    const { byName } = await loadToolContracts(contractsDir);
    const deps: IntakeDependencies = {
      runtime,
      contracts: byName,
      keyring: env.ONCEPORT_HMAC_KEYS,
      actors: await ActorDirectory.load(env.ONCEPORT_ACTORS_FILE),
      settings: { defaultWaitMs: env.ONCEPORT_ANSWER_WAIT_MS, maxWaitMs: env.ONCEPORT_MAX_WAIT_MS, maxBodyBytes: env.ONCEPORT_MAX_BODY_BYTES },
    };
    const watcher = new ExecutionWatcher(runtime.pool, () => undefined);
    await watcher.start();
    return {
      module: IntakeModule,
      controllers: [McpController, ExecutionsController, AgentProcessesController],
      providers: [
        { provide: INTAKE_DEPENDENCIES, useValue: deps },
        { provide: ExecutionWatcher, useValue: watcher },
        { provide: RestAgentProcesses, useValue: new RestAgentProcesses(runtime.pool) },
        CallToolService,
        QueryExecutionService,
        RecordDeliveryService,
        IntakeLifecycle,
      ],
    };
  }
}
