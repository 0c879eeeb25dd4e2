import { type McpCaller, openAgents } from '../callers/callers';
import { cpuShares, snapshotCpu } from '../cpu/process-cpu';
import type { BenchStack } from '../stack/bench-stack';
import { startProxyProcess } from '../stack/proxy-process';
import { callBackToBack } from './back-to-back';

/**
 * What the machine sustains for the same agents with nothing durable: each its own MCP session
 * through the pass-through proxy (the official SDK on both ends, one HTTP call to the target per
 * call, nothing recorded), back to back for the same time. Onceport does all of that and more, so
 * it cannot beat this rate; a floor below the goal says the goal is out of this machine's reach.
 */
export interface ThroughputFloor {
  readonly callsPerSecond: number;
  readonly failures: number;
  readonly firstFailure: string | null;
  /** Share of one core: the proxy, the target and the load generator. */
  readonly cpu: Record<string, number>;
}

export async function throughputFloor(stack: BenchStack, agents: number, seconds: number): Promise<ThroughputFloor> {
  const proxy = await startProxyProcess(stack.target.url);
  let callers: McpCaller[] = [];
  try {
    callers = await openAgents(proxy.url, null, agents, 'floor-agent');
    // Unmeasured, as for Onceport: every session warms up first.
    await Promise.all(callers.map((caller, index) => caller.call(`floor-warm-${index}`, 'v0').catch(() => null)));
    const groups = { proxy: [proxy.pid], target: [stack.target.pid], 'load generator': [process.pid] };
    const before = snapshotCpu(groups);
    const started = Date.now();
    const { calls, failures, firstFailure } = await callBackToBack(callers, started + seconds * 1000, `floor${agents}`);
    const wall = (Date.now() - started) / 1000;
    return { callsPerSecond: calls / wall, failures, firstFailure, cpu: cpuShares(before, snapshotCpu(groups), wall) };
  } finally {
    await Promise.all(callers.map((caller) => caller.close().catch(() => undefined)));
    await proxy.stop();
  }
}
