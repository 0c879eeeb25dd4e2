import { executionStreamId } from '@onceport/contracts';
import { remoteTestTarget } from '@onceport/test-target';
import { type McpCaller, mcpCaller, timed } from '../callers/callers';
import type { BenchStack } from '../stack/bench-stack';
import { AGENT_KEY } from '../stack/bench-stack';
import { type LatencySummary, summarize } from '../stats/summary';
import { freshTarget } from './fresh-target';
import { type DatabaseCost, costPerExecution, startCounting } from '../cpu/database-cost';

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
  const counting = await startCounting(stack.db.pool);
  const startedAt = Date.now();
  const results = await Promise.allSettled(agents.map((agent) => timed(() => agent.callTool('send_email', args))));
  await Promise.all(agents.map((agent) => agent.close()));
  const answered = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
  const database = counting ? await costPerExecution(stack.db.pool, counting, callers) : null;
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
  };
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
