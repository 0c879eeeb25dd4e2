import type { Tracer } from '@opentelemetry/api';
import type { ArgumentSealer, ToolContract } from '@onceport/domain';
import { HttpChannel, McpChannel, type SshChannel } from '@onceport/target-channels';
import { type CommandHandler, vaultStream, type ResultStore } from '@onceport/event-store';
import type { ConsumerSettings } from '@onceport/messaging';
import { type DispatcherConfig } from './dispatcher.config';
import { DispatchExecutionHandler } from './dispatch-execution/dispatch-execution.handler';
import { ackWaitMsFor, leaseMsFor } from './dispatch-execution/dispatch-timing';
import { OutcomeRecorder } from './dispatch-execution/outcome-recorder';
import { type CredentialSource, TargetSender } from './dispatch-execution/target-sender';
import type { DispatcherLog } from './logging/dispatcher-log';
import type { SecretScrubber } from './secrets/secret-scrubber';

/** The durable consumer name every dispatcher replica shares. */
export const DISPATCHER_DURABLE = 'dispatcher';

export interface DispatcherInput {
  /** Writes the execution, and reads the vault stream before every send. */
  readonly commands: CommandHandler;
  readonly results: ResultStore;
  readonly tracer: Tracer;
  readonly contracts: readonly ToolContract[];
  readonly config: DispatcherConfig;
  readonly credentials: CredentialSource;
  readonly secrets: SecretScrubber;
  /** Opens sensitive arguments sealed by intake (`AesGcmArgumentSealer` over `ONCEPORT_ENCRYPTION_KEYS`). */
  readonly sealer: Pick<ArgumentSealer, 'open'>;
  readonly log: DispatcherLog;
  /** Delivery's nudge: publish what was just appended now, not at the next poll. */
  readonly onAppended?: () => void;
  /** One per process; made here when not given. */
  readonly channel?: HttpChannel;
  /** Made by the sender when not given (it holds no connection between sends). */
  readonly ssh?: Pick<SshChannel, 'send'>;
  /** Upstream MCP servers (sessions, stdio processes); one per process, made here when not given. */
  readonly mcp?: McpChannel;
}

export interface Dispatcher {
  readonly handler: DispatchExecutionHandler;
  /** Closed by whoever owns the process, after the consumer stopped. */
  readonly channel: HttpChannel;
  /** Closed with `channel`: its stdio upstreams are child processes of this one. */
  readonly mcp: McpChannel;
  /** What the consumer of DISPATCH_TRIGGER_TYPES (DispatchTriggersConsumer) takes from configuration and contracts. */
  readonly consumerSettings: ConsumerSettings;
}

/**
 * Wires a dispatcher from its parts, outside of Nest, so the module and the tests build the very
 * same thing.
 *
 * @example const { handler, consumerSettings, channel } = createDispatcher({ ...runtimeParts, contracts, config, credentials, secrets, log });
 */
export function createDispatcher(input: DispatcherInput): Dispatcher {
  const channel = input.channel ?? new HttpChannel();
  const mcp = input.mcp ?? new McpChannel();
  const byName = new Map(input.contracts.map((contract) => [contract.name, contract]));
  const onAppended = input.onAppended ?? (() => undefined);
  const policy = { retries: input.config.retries, backoffMs: input.config.retryBackoffMs };
  const handler = new DispatchExecutionHandler({
    commands: input.commands,
    vault: async () => (await input.commands.load(vaultStream())).state,
    sender: new TargetSender({
      contracts: byName,
      credentials: input.credentials,
      channel,
      ssh: input.ssh,
      mcp,
      secrets: input.secrets,
      sealer: input.sealer,
    }),
    recorder: new OutcomeRecorder({ commands: input.commands, results: input.results, policy, secrets: input.secrets, onAppended }),
    tracer: input.tracer,
    contracts: byName,
    dispatcherId: input.config.dispatcherId,
    leaseMsFor: (tool) => leaseMsFor(byName.get(tool), input.config.leaseMs),
    onAppended,
    log: input.log,
    policy,
  });
  const consumerSettings: ConsumerSettings = { concurrency: input.config.concurrency, ackWaitMs: ackWaitMsFor(input.contracts) };
  return { handler, channel, mcp, consumerSettings };
}
