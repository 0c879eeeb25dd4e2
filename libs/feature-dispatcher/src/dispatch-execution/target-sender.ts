import type { JsonValue } from '@onceport/contracts';
import { type ArgumentSealer, type ToolContract, openSealedArguments } from '@onceport/domain';
import { type HttpChannel, McpChannel, MissingCredentialError, SshChannel } from '@onceport/target-channels';
import { observeDispatch } from '../metrics/dispatcher-metrics';
import type { SecretScrubber } from '../secrets/secret-scrubber';
import { type AttemptVerdict, mcpVerdictOf, refusedBeforeSend, sshVerdictOf, verdictOf } from './attempt-verdict';

/** Where credentials come from; `CredentialResolver` from target-channels in production. */
export interface CredentialSource {
  resolve(credentialRef: string): string;
}

export interface TargetSenderDeps {
  readonly contracts: ReadonlyMap<string, ToolContract>;
  readonly credentials: CredentialSource;
  readonly channel: Pick<HttpChannel, 'send'>;
  readonly secrets: SecretScrubber;
  /** Opens sealed sensitive arguments, here and only here, right before the request is rendered. */
  readonly sealer: Pick<ArgumentSealer, 'open'>;
  /** Made here when not given: it holds no connection between sends. */
  readonly ssh?: Pick<SshChannel, 'send'>;
  /** Upstream MCP servers; made here when not given (then closed by nobody: pass the service's own). */
  readonly mcp?: Pick<McpChannel, 'send'>;
}

export interface SendRequest {
  readonly executionId: string;
  readonly tool: string;
  readonly arguments: Readonly<Record<string, JsonValue>>;
  /** The dispatch span's trace context, for the target. */
  readonly traceHeaders: Readonly<Record<string, string>>;
}

/**
 * Puts one attempt on the wire: the tool's contract, its credential (resolved here and only here,
 * held for this call only), the channel. Never throws for anything the target or the configuration
 * does: every such case is a verdict the attempt is closed with.
 */
export class TargetSender {
  private readonly ssh: Pick<SshChannel, 'send'>;
  private readonly mcp: Pick<McpChannel, 'send'>;

  constructor(private readonly deps: TargetSenderDeps) {
    this.ssh = deps.ssh ?? new SshChannel();
    this.mcp = deps.mcp ?? new McpChannel();
  }

  async send(request: SendRequest): Promise<AttemptVerdict> {
    const contract = this.deps.contracts.get(request.tool);
    if (!contract) return refusedBeforeSend(`no tool contract named "${request.tool}" is loaded by this dispatcher`);
    const started = performance.now();
    const verdict = await this.sendWith(contract, request);
    observeDispatch(contract, verdict, (performance.now() - started) / 1000);
    return verdict;
  }

  private async sendWith(contract: ToolContract, request: SendRequest): Promise<AttemptVerdict> {
    const credential = this.credentialFor(contract.credentialRef);
    if ('refused' in credential) return credential.refused;
    // A value that does not open (key rotated out, altered, moved) is refused before any byte leaves.
    const opened = openSealedArguments(request.executionId, request.arguments, this.deps.sealer);
    if (!opened.ok) return refusedBeforeSend(opened.reason);
    if (contract.channel === 'ssh') {
      const outcome = await this.ssh.send({
        contract,
        executionId: request.executionId,
        arguments: opened.arguments,
        credential: credential.secret,
      });
      return sshVerdictOf(outcome);
    }
    if (contract.channel === 'mcp') {
      const outcome = await this.mcp.send({
        contract,
        executionId: request.executionId,
        arguments: opened.arguments,
        credential: credential.secret,
        traceHeaders: request.traceHeaders,
      });
      return mcpVerdictOf(outcome);
    }
    const outcome = await this.deps.channel.send({
      contract,
      executionId: request.executionId,
      arguments: opened.arguments,
      credential: credential.secret,
      traceHeaders: request.traceHeaders,
    });
    return verdictOf(outcome);
  }

  /** The secret (null when the contract names none), or the verdict that ends the attempt. */
  private credentialFor(credentialRef: string | null): { readonly secret: string | null } | { readonly refused: AttemptVerdict } {
    if (credentialRef === null) return { secret: null };
    try {
      const secret = this.deps.credentials.resolve(credentialRef);
      this.deps.secrets.remember(secret);
      return { secret };
    } catch (error) {
      // The resolver's messages name the reference and where it looked, never a value.
      if (error instanceof MissingCredentialError) return { refused: refusedBeforeSend(error.message) };
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      return { refused: refusedBeforeSend(`credential "${credentialRef}" could not be read (${code})`) };
    }
  }
}
