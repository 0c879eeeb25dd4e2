import type { BenchReport, ThroughputLevel } from './bench-report';
import { num } from './format';

/**
 * "What limits us", composed from the figures of this run (so it can't drift from them): where the
 * CPU went at the highest load, how close throughput came to the commit ceiling, and how much of a
 * single call's time the durable steps explain.
 */
export function whatLimitsUs(report: BenchReport): string {
  const sentences: string[] = [];
  const top = busiestLevel(report.throughput);
  if (top) {
    const shares = Object.entries(top.cpu).sort((a, b) => b[1] - a[1]);
    const total = shares.reduce((sum, [, share]) => sum + share, 0);
    const [first, second] = shares;
    sentences.push(
      `At ${top.agents} agents the processes together used ${num(total, 2)} of the machine's ${report.machine.cpus} cores` +
        (first ? `; the busiest was ${first[0]} (${num(first[1], 2)} core)` : '') +
        (second ? `, then ${second[0]} (${num(second[1], 2)})` : '') +
        '.',
    );
    const fraction = top.fractionOfCeiling.median;
    const machine = top.machineBusyCores;
    const cores = report.machine.cpus;
    const floor = top.floorPerSecond.median;
    const rate = `${num(top.executionsPerSecond.median, 0)}/s (${num(fraction * 100, 0)} % of the PostgreSQL commit ceiling measured right after, ${num((top.executionsPerSecond.median / floor) * 100, 0)} % of the ${num(floor, 0)} calls/s the pass-through proxy sustained with the same agents and nothing durable)`;
    if (total >= cores * 0.85) {
      sentences.push(
        `Our processes saturate the CPU, so throughput, ${rate}, is bounded by the CPU time each execution costs across the processes.`,
      );
    } else if (machine >= cores * 0.85) {
      sentences.push(
        `The machine was saturated (${num(machine, 2)} of ${cores} cores busy) but only ${num(total, 2)} cores of that were ours: the other work on the machine took the rest, so ${rate} is what was left for us, and commits (the ceiling) were as slow as they were for the same reason.`,
      );
    } else {
      sentences.push(
        `Neither our processes (${num(total, 2)} cores) nor the machine (${num(machine, 2)} of ${cores}) were saturated at ${rate}: the limit is waiting (round trips between processes and commits), not work.`,
      );
    }
  }
  const o = report.overhead;
  if (o) {
    const explained = o.durableMinimumMs.median / o.addedP50Ms.median;
    sentences.push(
      `One call alone: Onceport adds ${num(o.addedP50Ms.median)} ms at p50 over calling the target directly; the durable steps it cannot skip (commits and publish-acks measured in the same run) take ${num(o.durableMinimumMs.median)} ms, i.e. ${num(explained * 100, 0)} % of the added time; the rest is hops between processes, reads before each decision, and the MCP layer (the pass-through proxy alone adds ${num(o.p50.proxy.median - o.p50.direct.median)} ms).`,
    );
  }
  for (const profile of report.profiles) {
    if (profile.top.length === 0) continue;
    const items = profile.top.slice(0, 5).map((entry) => `${entry.fn} ${num(entry.selfPercent, 1)} %`);
    sentences.push(`CPU profile of ${profile.process}, self time of its busiest functions: ${items.join(', ')}.`);
  }
  return sentences.join(' ');
}

function busiestLevel(levels: readonly ThroughputLevel[]): ThroughputLevel | null {
  return [...levels].sort((a, b) => b.executionsPerSecond.median - a.executionsPerSecond.median)[0] ?? null;
}
