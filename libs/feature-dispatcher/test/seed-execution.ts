import { randomBytes } from 'node:crypto';
import type { JsonValue } from '@onceport/contracts';
import {
  type ArgumentSealer,
  type ExecutionCommand,
  type ToolContract,
  newExecutionId,
  recordTarget,
  sealSensitiveArguments,
} from '@onceport/domain';
import { acceptCommand } from '@onceport/domain/testing';
import { executionStream, type EventCause, type CommandHandler } from '@onceport/event-store';

/** Arguments create_deployment (demo.yaml) accepts. */
export const DEPLOY_ARGUMENTS: Readonly<Record<string, JsonValue>> = {
  project: 'shop',
  environment: 'staging',
  version: '1.4.2',
  strategy: 'rolling',
};

export interface SeedOptions {
  readonly arguments?: Readonly<Record<string, JsonValue>>;
  readonly traceparent?: string;
  /** Default true; false leaves it `accepted`. */
  readonly authorize?: boolean;
  /** Seal sensitive arguments as intake does (default: stored as given, like events written before sealing). */
  readonly sealWith?: Pick<ArgumentSealer, 'seal'>;
  /** The execution the sealed values are bound to, when it is not this one (a value moved elsewhere). */
  readonly sealFor?: string;
}

/**
 * An execution of `contract` accepted and authorized through the repository: what intake and
 * authorization will have written before the dispatcher hears of it.
 */
export async function seedExecution(commands: CommandHandler, contract: ToolContract, options: SeedOptions = {}): Promise<string> {
  const executionId = newExecutionId(Date.now(), randomBytes(10));
  const context: EventCause = { causationId: 'test:seed', actor: 'agent:test', traceparent: options.traceparent ?? null };
  const sample = acceptCommand();
  if (sample.type !== 'AcceptExecution') throw new Error('acceptCommand() should build an AcceptExecution');
  const { target } = recordTarget(contract);
  const given = options.arguments ?? DEPLOY_ARGUMENTS;
  const args = options.sealWith ? sealSensitiveArguments(contract, options.sealFor ?? executionId, given, options.sealWith) : given;
  const accept: ExecutionCommand = acceptCommand({
    executionId,
    tool: contract.name,
    channel: contract.channel,
    arguments: args,
    effectClass: contract.effect,
    record: {
      ...sample.data.record,
      tool: contract.name,
      channel: contract.channel,
      target,
      credential_ref: contract.credentialRef,
      arguments: args,
    },
  });
  await commands.handle(executionStream(executionId), (_loaded, now) => ({ ...accept, metadata: { now } }), context);
  if (options.authorize !== false) {
    await commands.handle(
      executionStream(executionId),
      (_loaded, now) => ({ type: 'AuthorizeExecution', data: { basis: 'policy', policyVersion: 'test-policy' }, metadata: { now } }),
      context,
    );
  }
  return executionId;
}

/** A fresh W3C traceparent, as intake would start one. */
export function newTraceparent(): string {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
}
