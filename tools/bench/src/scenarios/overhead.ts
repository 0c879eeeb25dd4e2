import { type Caller, timed } from '../callers/callers';
import { type LatencySummary, summarize } from '../stats/summary';
import { ACKS_ON_ANSWER_PATH, COMMITS_ON_ANSWER_PATH, type DurableSteps } from './durable-steps';
import type { TimedExecution } from './hop-breakdown';
import { freshIntent, shuffled } from './shuffle';

export interface OverheadRound {
  readonly direct: LatencySummary;
  readonly proxy: LatencySummary;
  readonly onceport: LatencySummary;
  readonly commit: LatencySummary;
  readonly publishAck: LatencySummary;
  /** COMMITS_ON_ANSWER_PATH × commit p50 + acks on the path × ack p50, measured in this round. */
  readonly durableMinimumMs: number;
  /** Onceport p50 − direct p50. */
  readonly addedP50Ms: number;
  /** Onceport p50 − proxy p50: what durability adds over the stateless MCP hop. */
  readonly addedOverProxyP50Ms: number;
  /** This round's {@link latencyFloor}. */
  readonly floor: LatencyFloor;
  /** The Onceport calls of this round, for the hop breakdown. */
  readonly onceportCalls: readonly TimedExecution[];
}

export interface OverheadCallers {
  readonly direct: Caller;
  readonly proxy: Caller;
  readonly onceport: Caller;
}

type Way = 'direct' | 'proxy' | 'onceport' | 'commit' | 'publishAck';
const WAYS: readonly Way[] = ['direct', 'proxy', 'onceport', 'commit', 'publishAck'];

/**
 * One round: `calls` iterations, each making one call every way (and one of each durable step) in
 * a fresh random order, so all five see the same machine at the same moments.
 */
export async function overheadRound(
  callers: OverheadCallers,
  steps: DurableSteps,
  calls: number,
  acksOnPath: number = ACKS_ON_ANSWER_PATH,
): Promise<OverheadRound> {
  const samples: Record<Way, number[]> = { direct: [], proxy: [], onceport: [], commit: [], publishAck: [] };
  const onceportCalls: TimedExecution[] = [];
  for (let i = 0; i < calls; i++) {
    for (const way of shuffled(WAYS)) {
      const startedAtMs = Date.now();
      const { ms, executionId } = await measure(way, callers, steps);
      samples[way].push(ms);
      if (executionId) onceportCalls.push({ executionId, startedAtMs, endedAtMs: Date.now() });
    }
  }
  const s = Object.fromEntries(WAYS.map((way) => [way, summarize(samples[way])])) as Record<Way, LatencySummary>;
  const durableMinimumMs = COMMITS_ON_ANSWER_PATH * s.commit.p50 + acksOnPath * s.publishAck.p50;
  return {
    ...s,
    durableMinimumMs,
    addedP50Ms: s.onceport.p50 - s.direct.p50,
    addedOverProxyP50Ms: s.onceport.p50 - s.proxy.p50,
    floor: latencyFloor({ direct: s.direct.p50, proxy: s.proxy.p50, durableMinimum: durableMinimumMs }, ADDED_OVER_MINIMUM_GOAL),
    onceportCalls,
  };
}

/** The latency goal: Onceport's added p50 at most this many times the durable minimum (issue 18). */
export const ADDED_OVER_MINIMUM_GOAL = 1.5;

export interface LatencyFloor {
  /** (proxy − direct + durable minimum) ÷ durable minimum: the goal's figure for a gateway that added only its durable steps to the MCP layer. */
  readonly overMinimum: number;
  /** What the goal leaves for everything else on the path (hops, reads, code): (goal − 1) × minimum − (proxy − direct); negative when the floor is above the goal. */
  readonly slackMs: number;
}

/** One round's floor of the latency figure, from its p50s (ms). */
export function latencyFloor(p50: { direct: number; proxy: number; durableMinimum: number }, goal: number): LatencyFloor {
  const mcpLayer = p50.proxy - p50.direct;
  return { overMinimum: (mcpLayer + p50.durableMinimum) / p50.durableMinimum, slackMs: (goal - 1) * p50.durableMinimum - mcpLayer };
}

async function measure(way: Way, callers: OverheadCallers, steps: DurableSteps): Promise<{ ms: number; executionId: string | null }> {
  if (way === 'commit') return { ms: await steps.commit(), executionId: null };
  if (way === 'publishAck') return { ms: await steps.publishAck(), executionId: null };
  const { project, version } = freshIntent(`ovh-${way}`);
  const { ms, value } = await timed(() => callers[way](project, version));
  return { ms, executionId: value };
}

/** Calls each way a few times first: connection pools, JIT and sessions warm, nothing recorded. */
export async function warmUp(callers: OverheadCallers, steps: DurableSteps, calls: number): Promise<void> {
  for (let i = 0; i < calls; i++) for (const way of WAYS) await measure(way, callers, steps);
}
