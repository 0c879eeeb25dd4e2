import { CredentialResolver } from './credentials/credential-resolver';
import { HttpChannel } from './http/http-channel';
import { McpChannel } from './mcp/mcp-channel';
import { SshChannel } from './ssh/ssh-channel';

/**
 * What a service that reaches targets holds: the HTTP channel (its connection pools), the SSH
 * channel, the MCP channel (its upstream sessions and stdio servers) and the credential resolver. The dispatcher sends and the reconciler probes through it,
 * so both read `ONCEPORT_CREDENTIAL_<REF>` and `ONCEPORT_CREDENTIALS_DIR` from the same environment.
 *
 * @example const channels = TargetChannels.fromEnv(process.env); … await channels.close();
 */
export class TargetChannels {
  readonly http = new HttpChannel();
  readonly ssh = new SshChannel();
  readonly mcp = new McpChannel();

  constructor(readonly credentials: CredentialResolver) {}

  /** The embedded start passes its own environment: nothing is read from a mutated process.env. */
  static fromEnv(env: NodeJS.ProcessEnv): TargetChannels {
    return new TargetChannels(new CredentialResolver(env, env['ONCEPORT_CREDENTIALS_DIR'] ?? null));
  }

  /** The SSH channel holds no connection between calls; the HTTP one closes its pools, the MCP one its upstreams. */
  async close(): Promise<void> {
    await Promise.all([this.http.close(), this.mcp.close()]);
  }
}
