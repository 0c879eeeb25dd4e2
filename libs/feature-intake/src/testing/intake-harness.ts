import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { BUILT_IN_ACTOR_LIMITS, loadToolContracts } from '@onceport/config';
import type { RequestCorrelation } from '@onceport/contracts';
import { parseKeyring } from '@onceport/domain';
import { type StoredEvent, executionStream, openOrm } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { type AesGcmArgumentSealer, type ServiceConfig, type ServicePorts, allMigrations, openServicePorts } from '@onceport/service-kit';
import { testArgumentSealer } from '@onceport/service-kit/testing';
import { ExecutionWatcher } from '../await-outcome/execution-watcher';
import type { ToolCallRequest } from '../call-tool/call-tool.request';
import { CallToolService } from '../call-tool/call-tool.service';
import { RecordDeliveryService } from '../deliver-result/record-delivery.service';
import type { IntakeDependencies } from '../intake-dependencies';
import { QueryExecutionService } from '../query-execution/query-execution.service';
import { CancelExecutionService } from '../cancel-execution/cancel-execution.service';
import { McpController } from '../mcp/mcp.controller';
import { McpSessions } from '../mcp/mcp-sessions';
import { RestAgentProcesses } from '../rest/agent-processes';
import { ExecutionsController } from '../rest/executions.controller';
import { IdempotencyKeys } from '../rest/idempotency-keys';
import { IdempotentResponses } from '../rest/idempotent-responses';
import { intakeEntities } from '../intake.entities';
import { intakeMigrations } from '../intake.migrations';
import { RunsService } from '../runs/runs.service';
import { hostOriginPolicyOf } from '../mcp/host-origin-policy';

/** The demo contracts; their origins are never reached (nothing here dispatches). */
export const DEMO_CONTRACTS = join(__dirname, '../../../domain/test/fixtures/contracts/demo.yaml');

/**
 * Intake's services over a fresh database and the service kit's real ports with in-process delivery, and no
 * authorization or dispatcher consuming: executions stay where intake leaves them.
 */
export interface IntakeHarness {
  readonly db: TestDatabase;
  readonly ports: ServicePorts;
  readonly deps: IntakeDependencies;
  /** The key ring intake seals with (a dispatcher of the same install opens with it). */
  readonly sealer: AesGcmArgumentSealer;
  readonly watcher: ExecutionWatcher;
  readonly runs: RunsService;
  readonly callTool: CallToolService;
  readonly query: QueryExecutionService;
  readonly delivery: RecordDeliveryService;
  /** Intake's services over `deps` (another key ring, other limits), wired as the module wires them. */
  callToolService(deps: IntakeDependencies, watcher: ExecutionWatcher): CallToolService;
  queryService(deps: IntakeDependencies): QueryExecutionService;
  /** `callTool`: one shared with another controller (its limits are per process). */
  mcpController(deps: IntakeDependencies, watcher: ExecutionWatcher, callTool?: CallToolService): McpController;
  executionsController(
    deps: IntakeDependencies,
    watcher: ExecutionWatcher,
    options?: { processes?: RestAgentProcesses; callTool?: CallToolService },
  ): ExecutionsController;
  /** A tool call as MCP would hand it over; `overrides` replace any field. */
  request(overrides?: Partial<ToolCallRequest>): ToolCallRequest;
  /** Every event in the store, oldest first. */
  allEvents(): Promise<StoredEvent[]>;
  /**
   * Plays authorization and dispatcher for one execution: authorized, dispatched, and the target's
   * answer observed (stored by reference) — `completed_result_not_delivered` for a 2xx.
   */
  complete(executionId: string, answer?: { status: number; body: unknown }): Promise<void>;
  /** What the execution watcher's change feed failed with (expected: nothing). */
  readonly watcherErrors: readonly unknown[];
  close(): Promise<void>;
}

let calls = 0;

/** `log`: where the ports' log lines go (default: nowhere). */
export async function startIntakeHarness(options: { log?: ServiceConfig['log'] } = {}): Promise<IntakeHarness> {
  const db = await createTestDatabase([...allMigrations.filter((m) => !m.id.startsWith('00')), ...intakeMigrations]);
  const ports = await openServicePorts({
    serviceName: 'intake-test',
    databaseUrl: db.url,
    delivery: 'in_process',
    natsUrl: 'nats://127.0.0.1:1',
    poolSize: 30,
    log: options.log ?? (() => undefined),
  });
  const mcpControllers: McpController[] = [];
  const track = (controller: McpController): McpController => {
    mcpControllers.push(controller);
    return controller;
  };
  const { byName } = await loadToolContracts([DEMO_CONTRACTS]);
  const sealer = testArgumentSealer();
  const orm = await openOrm({ databaseUrl: db.url, entities: intakeEntities, poolSize: 10 });
  const deps: IntakeDependencies = {
    em: orm.em,
    contracts: byName,
    keyring: parseKeyring(`k1:${randomBytes(32).toString('base64')}`),
    sealer,
    actors: { authenticate: () => null },
    limits: { limitsOf: () => BUILT_IN_ACTOR_LIMITS },
    settings: {
      defaultWaitMs: 0,
      maxWaitMs: 10_000,
      maxBodyBytes: 1024 * 1024,
      maxArgumentBytes: 256 * 1024,
      shutdownGraceMs: 1_000,
      maxBatchCalls: 10,
      hostOrigin: hostOriginPolicyOf({ bindHost: '127.0.0.1' }),
      sessionIdleMs: 86_400_000,
      resumedStreamsPerActor: 16,
    },
  };
  const watcherErrors: unknown[] = [];
  const watcher = new ExecutionWatcher(ports.pool, (error) => watcherErrors.push(error), {
    hear: (types, heard) => ports.delivery.hear(types, heard),
  });
  await watcher.start();
  const runs = new RunsService(ports.commands, ports.pool, ports.log);
  const callToolService = (over: IntakeDependencies, on: ExecutionWatcher): CallToolService =>
    new CallToolService(over, on, ports.commands, ports.results, ports.delivery, ports.tracer, ports.pool, runs);
  const queryService = (over: IntakeDependencies): QueryExecutionService => new QueryExecutionService(over, ports.commands, ports.results);
  const recordDelivery = (): RecordDeliveryService => new RecordDeliveryService(ports.commands, ports.log);
  return {
    db,
    ports,
    deps,
    sealer,
    watcher,
    runs,
    callTool: callToolService(deps, watcher),
    query: queryService(deps),
    delivery: recordDelivery(),
    callToolService,
    queryService,
    mcpController: (over, on, callTool = callToolService(over, on)) =>
      track(
        new McpController(
          over,
          callTool,
          queryService(over),
          recordDelivery(),
          new CancelExecutionService(ports.commands, queryService(over)),
          on,
          new McpSessions(over.em, ports.pool, over.settings.sessionIdleMs),
          ports.pool,
          ports.log,
        ),
      ),
    executionsController: (over, on, options = {}) =>
      new ExecutionsController(
        over,
        options.callTool ?? callToolService(over, on),
        queryService(over),
        recordDelivery(),
        options.processes ?? new RestAgentProcesses(over.em),
        new IdempotencyKeys(ports.commands, over.keyring),
        new IdempotentResponses(over.em),
        ports.log,
      ),
    request(overrides = {}) {
      calls += 1;
      const correlation: RequestCorrelation = { transport: 'mcp', jsonRpcId: calls, sessionId: 'mcp-sess-test', requestId: null };
      return {
        actor: 'agent:a',
        agentProcess: 'mcp-sess-test',
        tool: 'create_deployment',
        arguments: { project: 'web', environment: 'staging', version: '1.0.0', notes: 'first draft' },
        intentScope: null,
        correlation,
        clientIdempotencyKey: null,
        waitMs: 0,
        traceparent: null,
        tracestate: null,
        receivedAt: Date.now(),
        ...overrides,
      };
    },
    async complete(executionId, answer = { status: 201, body: { id: 'dep_1', state: 'live' } }) {
      const context = { causationId: 'test-pipeline' };
      const commands = ports.commands;
      await commands.handle(
        executionStream(executionId),
        // An approved per-use call is authorized by its grant already.
        (loaded, now) =>
          loaded.state.status === 'authorized'
            ? null
            : { type: 'AuthorizeExecution', data: { basis: 'policy', policyVersion: 'test' }, metadata: { now } },
        context,
      );
      await commands.handle(
        executionStream(executionId),
        (_loaded, now) => ({ type: 'StartDispatch', data: { dispatcherId: 'test-dispatcher', leaseMs: 30_000 }, metadata: { now } }),
        context,
      );
      const result = await ports.results.put(Buffer.from(JSON.stringify(answer.body)), 'application/json');
      await commands.handle(
        executionStream(executionId),
        (_loaded, now) => ({
          type: 'ObserveOutcome',
          data: { attempt: 1, targetStatus: answer.status, succeeded: answer.status < 400, result },
          metadata: { now },
        }),
        context,
      );
    },
    allEvents: () => ports.store.readAll({ limit: 100_000 }),
    watcherErrors,
    async close() {
      // What Nest does at shutdown: a controller that served a resumed stream holds a LISTEN connection until then.
      for (const controller of mcpControllers) controller.onApplicationShutdown();
      await watcher.stop();
      await orm.close();
      await ports.close();
      await db.drop();
    },
  };
}
