import { randomBytes } from 'node:crypto';
import { type ExecutionCommand, type Keyring, type ToolContract, fingerprintIntent, newExecutionId } from '@onceport/domain';
import { type CommandHandler, executionStream } from '@onceport/event-store';
import type { JsonValue } from '@onceport/contracts';

export interface UnknownExecution {
  readonly contract: ToolContract;
  readonly keyring: Keyring;
  /** Why the dispatcher could not tell (`connection_lost: …`, `task_unfinished: …`). */
  readonly reason: string;
  readonly arguments?: Readonly<Record<string, JsonValue>>;
  /** What the execution records of them, when not the arguments themselves (sensitive ones sealed, as intake stores them). */
  readonly storedArguments?: Readonly<Record<string, JsonValue>>;
  /** The upstream task the call was answered with, for an MCP tool that runs as a task. */
  readonly upstreamTaskId?: string;
  /** The id the call was sent under, when the test sent it first; a new one otherwise. */
  readonly executionId?: string;
}

/**
 * Records an execution accepted, authorized, dispatched and reported unknown, as a dispatcher would
 * leave it after a lost answer — what a settle test starts from; returns its id.
 */
export async function recordUnknownExecution(commands: CommandHandler, execution: UnknownExecution): Promise<string> {
  const { contract, keyring, reason, upstreamTaskId } = execution;
  const args = execution.arguments ?? {};
  const executionId = execution.executionId ?? newExecutionId(Date.now(), randomBytes(10));
  const intent = fingerprintIntent({ contract, actor: 'agent:t', intentScope: 'scope', arguments: args }, keyring);
  const steps: ((now: Date) => ExecutionCommand)[] = [
    (now) => ({
      type: 'AcceptExecution',
      metadata: { now },
      data: {
        executionId,
        tool: contract.name,
        channel: contract.channel,
        actor: 'agent:t',
        agentProcess: null,
        intentScope: 'scope',
        fingerprint: intent.fingerprint,
        record: intent.record,
        arguments: execution.storedArguments ?? args,
        effectClass: contract.effect,
        approval: 'none',
        correlationWindowMs: contract.correlationWindowMs,
        ledgerRetentionMs: null,
        clientIdempotencyKey: null,
      },
    }),
    (now) => ({ type: 'AuthorizeExecution', metadata: { now }, data: { basis: 'policy', policyVersion: 'p' } }),
    (now) => ({ type: 'StartDispatch', metadata: { now }, data: { dispatcherId: 'd', leaseMs: 60_000 } }),
    (now) => ({
      type: 'MarkOutcomeUnknown',
      metadata: { now },
      data: { attempt: 1, reason, ...(upstreamTaskId ? { upstreamTaskId } : {}) },
    }),
  ];
  for (const step of steps) await commands.handle(executionStream(executionId), (_loaded, now) => step(now), { causationId: 'test' });
  return executionId;
}
