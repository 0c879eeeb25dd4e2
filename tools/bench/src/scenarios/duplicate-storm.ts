import { remoteTestTarget } from '@onceport/test-target';
import { type McpCaller, mcpCaller, timed } from '../callers/callers';
import type { BenchStack } from '../stack/bench-stack';
import { AGENT_KEY } from '../stack/bench-stack';
import { type LatencySummary, summarize } from '../stats/summary';
import { freshTarget } from './fresh-target';

export interface StormRound {
  readonly callers: number;
  readonly effects: number;
  readonly distinctExecutionIds: number;
  readonly attached: number;
  readonly replayed: number;
  readonly failures: number;
  readonly firstFailure: string | null;
  readonly timeToAnswer: LatencySummary;
}

/**
 * `callers` agents, each with its own MCP session, send the same intent at once: `send_email` to one
 * recipient of one campaign (an idempotent tool with a ledger retention, so a call that arrives
 * after the first one completed is a ledger hit, not a second e-mail). One effect must reach the
 * target and every caller must hear the same execution id.
 */
export async function stormRound(stack: BenchStack, callers: number, round: number): Promise<StormRound> {
  await freshTarget(stack.target.url);
  const agents: McpCaller[] = [];
  for (let i = 0; i < callers; i += 50) {
    agents.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(50, callers - i) }, (_, j) => mcpCaller(`${stack.intake.url}/mcp`, AGENT_KEY, `storm-${i + j}`)),
      )),
    );
  }
  const args = {
    recipient: `storm-${round}-${Date.now()}@example.com`,
    campaign_id: 'bench-storm',
    subject: 'Hello',
    body: 'One e-mail, however often it is asked for.',
  };
  const results = await Promise.allSettled(agents.map((agent) => timed(() => agent.callTool('send_email', args))));
  await Promise.all(agents.map((agent) => agent.close()));
  const answered = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
  const effects = await remoteTestTarget(stack.target.url).effectCount({ route: 'emails' });
  return {
    callers,
    effects,
    distinctExecutionIds: new Set(answered.map((a) => a.value.execution_id)).size,
    attached: answered.filter((a) => a.value.attached === true && a.value.replay !== true).length,
    replayed: answered.filter((a) => a.value.replay === true).length,
    failures: failed.length,
    firstFailure: failed[0] ?? null,
    timeToAnswer: summarize(answered.map((a) => a.ms)),
  };
}
