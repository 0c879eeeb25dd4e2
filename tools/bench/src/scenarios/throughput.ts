import { type Effect, remoteTestTarget } from '@onceport/test-target';
import { cpus } from 'node:os';
import { cpuShares, machineBusyCores, machineJiffies, postgresBackendPids, snapshotCpu } from '../cpu/process-cpu';
import type { BenchStack } from '../stack/bench-stack';
import { AGENT_KEY } from '../stack/bench-stack';
import { COMMITS_PER_EXECUTION, type DurableSteps } from './durable-steps';
import { freshTarget } from './fresh-target';
import { freshIntent } from './shuffle';
import { type BrokerCost, messagesPerExecution, startCountingMessages } from '../cpu/broker-cost';
import { type DatabaseCost, costPerExecution, startCounting } from '../cpu/database-cost';
import { openAgents } from '../callers/callers';
import { callBackToBack } from './back-to-back';
import { type ThroughputFloor, throughputFloor } from './throughput-floor';

export interface ThroughputRound {
  readonly agents: number;
  readonly seconds: number;
  readonly executions: number;
  readonly executionsPerSecond: number;
  readonly failures: number;
  readonly firstFailure: string | null;
  /** Share of one core per process (PostgreSQL: the backends serving this database). */
  readonly cpu: Record<string, number>;
  /** Cores busy on the whole machine meanwhile: ours and everyone else's. */
  readonly machineBusyCores: number;
  /** Single-event commits per second with the same number of concurrent writers. */
  readonly commitsPerSecond: number;
  /** commitsPerSecond ÷ COMMITS_PER_EXECUTION. */
  readonly ceilingPerSecond: number;
  readonly fractionOfCeiling: number;
  /** Execution ids that reached the target more than once (checked at the target, by idempotency key). */
  readonly duplicateEffects: number;
  /** Completed executions whose effect the target never saw. */
  readonly missingEffects: number;
  /** PostgreSQL's commits and statements per execution in the round (null: no pg_stat_statements). */
  readonly database: DatabaseCost | null;
  /** NATS's messages per execution in the round (null: the server was started without monitoring). */
  readonly broker: BrokerCost | null;
  /** Right after: the same agents through the pass-through proxy, nothing durable. */
  readonly floor: ThroughputFloor;
}

/** N agents, each with its own MCP session, calling back to back with distinct intents for `seconds`. */
export async function throughputRound(
  stack: BenchStack,
  steps: DurableSteps,
  agents: number,
  seconds: number,
  commitSeconds: number,
): Promise<ThroughputRound> {
  const callers = await openAgents(`${stack.intake.url}/mcp`, AGENT_KEY, agents, 'bench-agent');
  // Unmeasured: each new agent process gets its session grant and the processes warm up.
  await Promise.all(
    callers.map(async (caller, index) => {
      for (let i = 0; i < 2; i++)
        await caller.call(...(Object.values(freshIntent(`warm${agents}-${index}`)) as [string, string])).catch(() => null);
    }),
  );
  await freshTarget(stack.target.url);
  const groups = await processGroups(stack);
  const counting = await startCounting(stack.db.pool);
  const countingMessages = await startCountingMessages(stack.nats);
  const before = snapshotCpu(groups);
  const machineBefore = machineJiffies();
  const started = Date.now();
  const deadline = started + seconds * 1000;
  const executionIds: string[] = [];
  const { failures, firstFailure } = await callBackToBack(callers, deadline, `tp${agents}`, (id) => {
    if (id) executionIds.push(id);
  });
  const wall = (Date.now() - started) / 1000;
  const cpu = cpuShares(before, snapshotCpu(groups), wall);
  const machineBusy = machineBusyCores(machineBefore, machineJiffies(), cpus().length);
  const database = counting ? await costPerExecution(stack.db.pool, counting, executionIds.length) : null;
  const broker = countingMessages ? await messagesPerExecution(stack.nats, countingMessages, executionIds.length) : null;
  await Promise.all(callers.map((caller) => caller.close()));
  const commitsPerSecond = await commitRate(steps, agents, commitSeconds);
  const ceilingPerSecond = commitsPerSecond / COMMITS_PER_EXECUTION;
  const { duplicates, missing } = await checkEffects(stack.target.url, executionIds);
  const floor = await throughputFloor(stack, agents, seconds);
  const executionsPerSecond = executionIds.length / wall;
  return {
    agents,
    seconds: wall,
    executions: executionIds.length,
    executionsPerSecond,
    failures,
    firstFailure,
    cpu,
    machineBusyCores: machineBusy,
    commitsPerSecond,
    ceilingPerSecond,
    fractionOfCeiling: executionsPerSecond / ceilingPerSecond,
    duplicateEffects: duplicates,
    missingEffects: missing,
    database,
    broker,
    floor,
  };
}

async function processGroups(stack: BenchStack): Promise<Record<string, number[]>> {
  const groups: Record<string, number[]> = Object.fromEntries(Object.entries(stack.pids()).map(([name, pid]) => [name, [pid]]));
  groups['postgresql'] = await postgresBackendPids(stack.db.pool, stack.db.name);
  groups['load generator'] = [process.pid];
  return groups;
}

/** Commits per second that `writers` concurrent writers reach on this machine right now. */
export async function commitRate(steps: DurableSteps, writers: number, seconds: number): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  const started = Date.now();
  let commits = 0;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (Date.now() < deadline) {
        await steps.commit();
        commits += 1;
      }
    }),
  );
  return commits / ((Date.now() - started) / 1000);
}

/**
 * Checked at the target, which records every request it applies (the benchmark turns its own
 * idempotency off, so a second send shows): an execution id seen twice as Idempotency-Key is a
 * duplicate send; an intent (project, version) applied twice is a duplicate execution.
 */
export async function checkEffects(targetUrl: string, executionIds: readonly string[]): Promise<{ duplicates: number; missing: number }> {
  const effects = await remoteTestTarget(targetUrl).effects({ route: 'deployments' });
  const perKey = countBy(effects, (effect) => effect.idempotencyKey);
  const perIntent = countBy(
    effects,
    (effect) => `${effect.params['project'] ?? ''}|${JSON.stringify((effect.body as { version?: unknown } | null)?.version ?? null)}`,
  );
  let duplicates = [...perIntent.values()].filter((count) => count > 1).length;
  let missing = 0;
  for (const id of new Set(executionIds)) {
    const count = perKey.get(id) ?? 0;
    if (count > 1) duplicates += 1;
    if (count === 0) missing += 1;
  }
  return { duplicates, missing };
}

function countBy(effects: readonly Effect[], keyOf: (effect: Effect) => string | null): Map<string, number> {
  const counts = new Map<string, number>();
  for (const effect of effects) {
    const key = keyOf(effect);
    if (key !== null) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
