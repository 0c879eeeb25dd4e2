import { executionStreamId } from '@onceport/contracts';
import { remoteTestTarget } from '@onceport/test-target';
import { openAgents, timed } from '../callers/callers';
import type { BenchStack } from '../stack/bench-stack';
import { AGENT_KEY } from '../stack/bench-stack';
import { type LatencySummary, summarize } from '../stats/summary';
import { freshTarget } from './fresh-target';
import { type BrokerCost, messagesPerExecution, startCountingMessages } from '../cpu/broker-cost';
import { type DatabaseCost, costPerExecution, startCounting } from '../cpu/database-cost';
import { startProxyProcess } from '../stack/proxy-process';

export interface StormRound {
  readonly callers: number;
  readonly effects: number;
  readonly distinctExecutionIds: number;
  readonly attached: number;
  readonly replayed: number;
  readonly failures: number;
  readonly firstFailure: string | null;
  readonly timeToAnswer: LatencySummary;
  /** ms after the calls went out at which the execution's events were recorded (first, and last of each repeated kind). */
  readonly timeline: Record<string, number>;
  /** PostgreSQL's work per caller (not per execution: there is one), null without pg_stat_statements. */
  readonly database: DatabaseCost | null;
  /** NATS's messages per caller, null when the server was started without monitoring. */
  readonly broker: BrokerCost | null;
  /** The same number of MCP calls at once through the pass-through proxy: the machine's floor for answering them. */
  readonly floor: StormFloor;
}

/**
 * What answering that many concurrent MCP calls costs on this machine with nothing durable: the
 * official SDK on both ends (a session per caller), a stateless server and one HTTP call to the
 * target each. Onceport's storm cannot answer faster than this; a floor above the goal says the
 * goal is out of this machine's reach, as the commit ceiling does for throughput.
 */
export interface StormFloor {
  readonly timeToAnswer: LatencySummary;
  readonly failures: number;
  readonly firstFailure: string | null;
}

/**
 * `callers` agents, each with its own MCP session, send the same intent at once: `send_email` to one
 * recipient of one campaign (an idempotent tool with a ledger retention, so a call that arrives
 * after the first one completed is a ledger hit, not a second e-mail). One effect must reach the
 * target and every caller must hear the same execution id.
 */
export async function stormRound(stack: BenchStack, callers: number, round: number): Promise<StormRound> {
  await freshTarget(stack.target.url);
  const agents = await openAgents(`${stack.intake.url}/mcp`, AGENT_KEY, callers, 'storm', 50); // not timed: the storm is the calls
  const args = {
    recipient: `storm-${round}-${Date.now()}@example.com`,
    campaign_id: 'bench-storm',
    subject: 'Hello',
    body: 'One e-mail, however often it is asked for.',
  };
  const counting = await startCounting(stack.db.pool);
  const countingMessages = await startCountingMessages(stack.nats);
  const startedAt = Date.now();
  const results = await Promise.allSettled(agents.map((agent) => timed(() => agent.callTool('send_email', args))));
  await Promise.all(agents.map((agent) => agent.close()));
  const answered = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
  const database = counting ? await costPerExecution(stack.db.pool, counting, callers) : null;
  const broker = countingMessages ? await messagesPerExecution(stack.nats, countingMessages, callers) : null;
  const effects = await remoteTestTarget(stack.target.url).effectCount({ route: 'emails' });
  const executionId = answered[0]?.value.execution_id;
  const timeline = executionId ? await stormTimeline(stack, executionId, startedAt) : {};
  return {
    callers,
    effects,
    distinctExecutionIds: new Set(answered.map((a) => a.value.execution_id)).size,
    attached: answered.filter((a) => a.value.attached === true && a.value.replay !== true).length,
    replayed: answered.filter((a) => a.value.replay === true).length,
    failures: failed.length,
    firstFailure: failed[0] ?? null,
    timeToAnswer: summarize(answered.map((a) => a.ms)),
    timeline,
    database,
    broker,
    floor: await stormFloor(stack, callers, round),
  };
}

/** The same storm through the pass-through proxy, each call a deployment of its own (the proxy keeps no identity). */
async function stormFloor(stack: BenchStack, callers: number, round: number): Promise<StormFloor> {
  const proxy = await startProxyProcess(stack.target.url);
  try {
    const agents = await openAgents(proxy.url, null, callers, 'storm', 50);
    const results = await Promise.allSettled(agents.map((agent, i) => timed(() => agent.call(`storm-floor-${round}`, `v${i}`))));
    await Promise.all(agents.map((agent) => agent.close()));
    const failed = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
    return {
      timeToAnswer: summarize(results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.ms] : []))),
      failures: failed.length,
      firstFailure: failed[0] ?? null,
    };
  } finally {
    await proxy.stop();
  }
}

/** When (ms after the calls went out) the execution reached each step, and its first and last attach and delivery. */
async function stormTimeline(stack: BenchStack, executionId: string, startedAt: number): Promise<Record<string, number>> {
  const rows = await stack.db.pool.query<{ event_type: string; first_ms: number; last_ms: number; n: number }>(
    `SELECT event_type, (extract(epoch FROM min(recorded_at)) * 1000 - $2)::float8 AS first_ms,
            (extract(epoch FROM max(recorded_at)) * 1000 - $2)::float8 AS last_ms, count(*)::int AS n
       FROM onceport.events WHERE stream_id = $1 GROUP BY event_type ORDER BY min(global_position)`,
    [executionStreamId(executionId), startedAt],
  );
  const timeline: Record<string, number> = {};
  for (const row of rows.rows) {
    timeline[row.event_type] = Math.round(row.first_ms);
    if (row.n > 1) timeline[`${row.event_type} (last of ${row.n})`] = Math.round(row.last_ms);
  }
  return timeline;
}
