// Shared setup for this lib's integration tests: an actors file, accepted executions, a handler on a real store.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { trace } from '@opentelemetry/api';
import { ActorDirectory, hashApiKey, loadToolContracts, parseActorsFile } from '@onceport/config';
import { type ApprovalMode, type RunReference, executionStreamId, runIntentScope } from '@onceport/contracts';
import { type AcceptExecution, type ToolContract, newExecutionId } from '@onceport/domain';
import { type EventStore, executionStream, type CommandHandler } from '@onceport/event-store';
import { type WireEvent, toWireEvent } from '@onceport/messaging';
import { AuthorizeExecutionHandler } from '../authorize-execution/authorize-execution.handler';
import { type Log } from '../shared/log';

export const KEYS = {
  deployBot: 'op_deploy-bot-key-1',
  humanBot: 'op_human-bot-key-1',
  payBot: 'op_pay-bot-key-1',
  alice: 'op_alice-admin-key-1',
} as const;

export const DEMO_CONTRACTS_DIR = join(__dirname, '../../../domain/test/fixtures/contracts');

export const ACTORS_YAML = `
actors:
  - id: agent:deploy-bot
    api_keys_sha256: [${hashApiKey(KEYS.deployBot)}]
    tools: [create_deployment, get_build_status]
    session_grant: automatic
  - id: agent:human-bot
    api_keys_sha256: [${hashApiKey(KEYS.humanBot)}]
    tools: "*"
    session_grant: human
  - id: agent:pay-bot
    api_keys_sha256: [${hashApiKey(KEYS.payBot)}]
    tools: [charge_payment]
    session_grant: automatic
admins:
  - id: ops:alice
    api_keys_sha256: [${hashApiKey(KEYS.alice)}]
`;

export function testDirectory(yaml = ACTORS_YAML): ActorDirectory {
  return new ActorDirectory(parseActorsFile(yaml, 'test-actors.yaml'));
}

export const APPROVAL_MODES: Readonly<Record<string, ApprovalMode>> = {
  create_deployment: 'session',
  get_build_status: 'none',
  charge_payment: 'per_use',
};

export function freshExecutionId(): string {
  return newExecutionId(Date.now(), randomBytes(10));
}

export interface Call {
  readonly actor: string;
  readonly tool: string;
  readonly agentProcess?: string | null;
  readonly approval?: ApprovalMode;
  readonly executionId?: string;
  /** A call of a run: its intent scope derives from the trigger. */
  readonly run?: RunReference;
  /** The identity arguments (default `{ project: 'shop' }`). */
  readonly arguments?: Record<string, string>;
}

/** An AcceptExecution whose canonical record agrees with its fields (the contract checks that). */
export function acceptCommand(call: Call, now = new Date()): AcceptExecution {
  const { actor, tool } = call;
  const record = {
    actor,
    tool,
    channel: 'http' as const,
    target: 'https://deploy.example.com',
    credential_ref: 'deploy-api',
    method: 'POST /v1/x',
    arguments: call.arguments ?? { project: 'shop' },
    intent_scope: call.run ? runIntentScope(call.run.trigger) : 'run:test',
  };
  return {
    type: 'AcceptExecution',
    metadata: { now },
    data: {
      executionId: call.executionId ?? freshExecutionId(),
      tool,
      channel: 'http',
      actor,
      agentProcess: call.agentProcess === undefined ? 'mcp-sess-1' : call.agentProcess,
      intentScope: record.intent_scope,
      fingerprint: `hmac-sha256:k1:${randomBytes(32).toString('hex')}`,
      record,
      arguments: record.arguments,
      effectClass: 'idempotent',
      approval: call.approval ?? APPROVAL_MODES[tool] ?? 'none',
      correlationWindowMs: 60_000,
      ledgerRetentionMs: null,
      clientIdempotencyKey: null,
      run: call.run ?? null,
    },
  };
}

/** Accepts a call through the repository, as intake would, and returns its ExecutionAccepted as delivered. */
export async function seedAccepted(commands: CommandHandler, store: EventStore, call: Call, traceparent?: string): Promise<WireEvent> {
  const command = acceptCommand(call);
  await commands.handle(executionStream(command.data.executionId), (_loaded, now) => ({ ...command, metadata: { now } }), {
    causationId: 'test:intake',
    traceparent: traceparent ?? null,
  });
  const [stored] = await store.readStream(executionStreamId(command.data.executionId));
  if (!stored) throw new Error('seeded execution not found');
  return toWireEvent(stored);
}

export const delivered = { traceparent: null, tracestate: null } as const;

export const silentLog: Log = () => undefined;

export async function demoContracts(): Promise<ReadonlyMap<string, ToolContract>> {
  return (await loadToolContracts(DEMO_CONTRACTS_DIR)).byName;
}

export async function createHandler(
  store: EventStore,
  commands: CommandHandler,
  options: { directory?: ActorDirectory; approvalTtlMs?: number; log?: Log } = {},
): Promise<AuthorizeExecutionHandler> {
  return new AuthorizeExecutionHandler({
    commands,
    directory: options.directory ?? testDirectory(),
    contracts: await demoContracts(),
    approvalTtlMs: options.approvalTtlMs ?? 15 * 60_000,
    tracer: trace.getTracer('authorization-test'),
    log: options.log ?? silentLog,
  });
}
