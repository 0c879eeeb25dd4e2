import type { ToolContract } from '@onceport/domain';

/** Time between the end of a contract's timeout and the moment its lease or ack wait runs out. */
const LEASE_MARGIN_MS = 5_000;
const ACK_MARGIN_MS = 30_000;

/**
 * The lease written into DispatchStarted: the configured one, stretched for a contract whose own
 * timeout is longer. A lease that ends while the request may still be in flight would let the
 * reconciler probe (and settle) an attempt that is about to report its outcome itself.
 */
export function leaseMsFor(contract: ToolContract | undefined, configuredMs: number): number {
  if (!contract) return configuredMs;
  return Math.max(configuredMs, sendBoundMs(contract) + LEASE_MARGIN_MS);
}

/**
 * How long JetStream waits for a trigger's ack before handing it to another replica: longer than
 * the longest HTTP exchange or SSH session, so a slow target does not get a second dispatcher looking at the same
 * execution for nothing. (A redelivery would still be harmless: the stream says it is dispatched.)
 */
export function ackWaitMsFor(contracts: readonly ToolContract[]): number {
  const longest = contracts.reduce((max, c) => Math.max(max, sendBoundMs(c)), 0);
  return longest + ACK_MARGIN_MS;
}

/** The longest one send may take: an MCP upstream may first have to be started and greet us. */
function sendBoundMs(contract: ToolContract): number {
  return contract.channel === 'mcp' ? contract.target.timeoutMs + contract.target.upstream.connectTimeoutMs : contract.target.timeoutMs;
}
