// What the recordings need to run the real authorization handler: an actors file, the demo tool
// contracts, and an ExecutionAccepted written the way intake writes it.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { trace } from '@opentelemetry/api';
import { ActorDirectory, hashApiKey, loadToolContracts, parseActorsFile } from '@onceport/config';
import { type ApprovalMode, executionStreamId } from '@onceport/contracts';
import { newExecutionId } from '@onceport/domain';
import { type CommandHandler, type EventStore, executionStream } from '@onceport/event-store';
import { AuthorizeExecutionHandler } from '@onceport/feature-authorization';
import { type WireEvent, toWireEvent } from '@onceport/messaging';

const DEMO_CONTRACTS_DIR = join(__dirname, '../../../libs/domain/test/fixtures/contracts');

/** The actors the recorded sessions and commands belong to (their keys are never used). */
export const ACTORS_YAML = `
actors:
  - id: agent:deploy-bot
    api_keys_sha256: [${hashApiKey('op_deploy-bot-key-1')}]
    tools: [create_deployment, get_build_status]
    session_grant: automatic
  - id: agent:human-bot
    api_keys_sha256: [${hashApiKey('op_human-bot-key-1')}]
    tools: "*"
    session_grant: human
  - id: agent:pay-bot
    api_keys_sha256: [${hashApiKey('op_pay-bot-key-1')}]
    tools: [charge_payment]
    session_grant: automatic
admins:
  - id: ops:alice
    api_keys_sha256: [${hashApiKey('op_alice-admin-key-1')}]
`;

export const directory = (): ActorDirectory => new ActorDirectory(parseActorsFile(ACTORS_YAML, 'recorder-actors.yaml'));

const APPROVAL_MODES: Readonly<Record<string, ApprovalMode>> = {
  create_deployment: 'session',
  get_build_status: 'none',
  charge_payment: 'per_use',
};

export interface Call {
  readonly actor: string;
  readonly tool: string;
  readonly agentProcess: string;
}

/** Accepts a call through the repository, as intake would, and returns its ExecutionAccepted as delivered. */
export async function seedAccepted(commands: CommandHandler, store: EventStore, call: Call, traceparent: string): Promise<WireEvent> {
  const executionId = newExecutionId(Date.now(), randomBytes(10));
  const record = {
    actor: call.actor,
    tool: call.tool,
    channel: 'http' as const,
    target: 'https://deploy.example.com',
    credential_ref: 'deploy-api',
    method: 'POST /v1/x',
    arguments: { project: 'shop' },
    intent_scope: 'run:test',
  };
  await commands.handle(
    executionStream(executionId),
    (_loaded, now) => ({
      type: 'AcceptExecution',
      metadata: { now },
      data: {
        executionId,
        tool: call.tool,
        channel: 'http',
        actor: call.actor,
        agentProcess: call.agentProcess,
        intentScope: record.intent_scope,
        fingerprint: `hmac-sha256:k1:${randomBytes(32).toString('hex')}`,
        record,
        arguments: record.arguments,
        effectClass: 'idempotent',
        approval: APPROVAL_MODES[call.tool] ?? 'none',
        correlationWindowMs: 60_000,
        ledgerRetentionMs: null,
        clientIdempotencyKey: null,
      },
    }),
    { causationId: 'recorder:intake', traceparent },
  );
  const [stored] = await store.readStream(executionStreamId(executionId));
  if (!stored) throw new Error('seeded execution not found');
  return toWireEvent(stored);
}

export const delivered = { traceparent: null, tracestate: null } as const;

/** The authorization service's handler over `store`, deciding by the recorder's actors and the demo contracts. */
export async function authorizationHandler(store: EventStore, commands: CommandHandler): Promise<AuthorizeExecutionHandler> {
  return new AuthorizeExecutionHandler({
    commands,
    directory: directory(),
    contracts: (await loadToolContracts(DEMO_CONTRACTS_DIR)).byName,
    approvalTtlMs: 15 * 60_000,
    tracer: trace.getTracer('fixture-recorder'),
    log: () => undefined,
  });
}
