import type { McpToolContract, ToolContract } from '@onceport/domain';
import type { McpChannel } from '@onceport/target-channels';
import type { CredentialSource } from '../dispatch-execution/target-sender';
import type { DispatcherLog } from '../logging/dispatcher-log';

/**
 * At start, each `channel: mcp` contract is compared with what its upstream lists now; one warning
 * per contract that drifted names it (a tool gone, arguments added, removed or newly required), one
 * per upstream that could not be asked. Calls are not refused for it: the operator decides.
 * Resolves when every upstream was asked; never throws.
 */
export async function reportUpstreamDrift(
  contracts: readonly ToolContract[],
  channel: Pick<McpChannel, 'checkUpstreams'>,
  credentials: CredentialSource,
  log: DispatcherLog,
): Promise<void> {
  const mcp = contracts.filter((contract): contract is McpToolContract => contract.channel === 'mcp');
  if (mcp.length === 0) return;
  const credentialOf = (ref: string): string | null => {
    try {
      return credentials.resolve(ref);
    } catch {
      return null; // reported when a call needs it; the check goes on without it
    }
  };
  try {
    const { drift, unreachable } = await channel.checkUpstreams(mcp, credentialOf);
    for (const d of drift)
      log('warn', 'tool contract no longer matches its MCP upstream', {
        tool: d.contract,
        upstream: d.upstream,
        upstream_tool: d.tool,
        problem: d.problem,
      });
    for (const u of unreachable)
      log('warn', 'MCP upstream could not be asked for its tools at start', { upstream: u.upstream, reason: u.reason });
    if (drift.length === 0 && unreachable.length === 0) log('info', 'MCP upstreams match their contracts', { contracts: mcp.length });
  } catch (error) {
    log('warn', 'MCP upstream check failed', { reason: String(error).slice(0, 300) });
  }
}
