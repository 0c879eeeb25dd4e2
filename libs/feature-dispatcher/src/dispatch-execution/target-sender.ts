import type { JsonValue } from '@onceport/contracts';
import type { ToolContract } from '@onceport/domain';
import type { HttpChannel } from '@onceport/http-channel';
import { MissingCredentialError } from '@onceport/runtime';
import type { SecretScrubber } from '../secrets/secret-scrubber';
import { type AttemptVerdict, refusedBeforeSend, verdictOf } from './attempt-verdict';

export const SSH_NOT_AVAILABLE = 'ssh channel not available in this version';

/** Where credentials come from; `CredentialResolver` from the runtime in production. */
export interface CredentialSource {
  resolve(credentialRef: string): string;
}

export interface TargetSenderDeps {
  readonly contracts: ReadonlyMap<string, ToolContract>;
  readonly credentials: CredentialSource;
  readonly channel: Pick<HttpChannel, 'send'>;
  readonly secrets: SecretScrubber;
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
  constructor(private readonly deps: TargetSenderDeps) {}

  async send(request: SendRequest): Promise<AttemptVerdict> {
    const contract = this.deps.contracts.get(request.tool);
    if (!contract) return refusedBeforeSend(`no tool contract named "${request.tool}" is loaded by this dispatcher`);
    if (contract.channel === 'ssh') return refusedBeforeSend(SSH_NOT_AVAILABLE);
    const credential = this.credentialFor(contract.credentialRef);
    if ('refused' in credential) return credential.refused;
    const outcome = await this.deps.channel.send({
      contract,
      executionId: request.executionId,
      arguments: request.arguments,
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
