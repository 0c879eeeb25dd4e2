import type { Pool } from 'pg';
import { acrossRounds, type AcrossRounds } from '../stats/summary';

/** One Onceport call as the agent saw it: when it started and ended (epoch ms) and its execution. */
export interface TimedExecution {
  readonly executionId: string;
  readonly startedAtMs: number;
  readonly endedAtMs: number;
}

/** The steps between the events of one execution, named by where the time went. */
export const HOPS = [
  'call → ExecutionAccepted (intake: MCP, matching, acceptance commit)',
  'ExecutionAccepted → ExecutionAuthorized (relay, JetStream, authorization, commit)',
  'ExecutionAuthorized → DispatchStarted (relay, JetStream, dispatcher, commit)',
  'DispatchStarted → OutcomeObserved (HTTP to the target, commit)',
  'OutcomeObserved → answer received (change feed, intake reads, response)',
] as const;

const EVENTS = ['ExecutionAccepted', 'ExecutionAuthorized', 'DispatchStarted', 'OutcomeObserved'] as const;

/**
 * Where one call's time goes, from the store's own timestamps (`recorded_at`, written by the
 * appending process; every process runs on this machine, so the clocks agree): the median of each
 * hop over the calls given.
 */
export async function hopBreakdown(pool: Pool, calls: readonly TimedExecution[]): Promise<Record<string, AcrossRounds>> {
  const rows = await pool.query<{ stream_id: string; event_type: string; ms: number }>(
    `SELECT stream_id, event_type, (extract(epoch FROM recorded_at) * 1000)::float8 AS ms FROM onceport.events
     WHERE stream_id = ANY($1::text[]) AND event_type = ANY($2::text[])`,
    [calls.map((c) => `execution-${c.executionId}`), [...EVENTS]],
  );
  const at = new Map<string, Map<string, number>>();
  for (const row of rows.rows) {
    const byType = at.get(row.stream_id) ?? new Map<string, number>();
    if (!byType.has(row.event_type)) byType.set(row.event_type, row.ms);
    at.set(row.stream_id, byType);
  }
  const hops: number[][] = HOPS.map(() => []);
  for (const call of calls) {
    const byType = at.get(`execution-${call.executionId}`);
    if (!byType) continue;
    const points = [call.startedAtMs, ...EVENTS.map((type) => byType.get(type) ?? Number.NaN), call.endedAtMs];
    for (let i = 0; i < HOPS.length; i++) hops[i]?.push((points[i + 1] as number) - (points[i] as number));
  }
  return Object.fromEntries(HOPS.map((hop, i) => [hop, acrossRounds(hops[i] ?? [])]));
}
