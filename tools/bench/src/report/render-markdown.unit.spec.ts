import { acrossRounds } from '../stats/summary';
import type { StormRound } from '../scenarios/duplicate-storm';
import type { BenchReport, OverheadSection, ThroughputLevel } from './bench-report';
import { renderMarkdown } from './render-markdown';

const f = (...values: number[]) => acrossRounds(values);

function level(agents: number, perSecond: number, duplicates = 0, floorPerSecond = 900): ThroughputLevel {
  return {
    agents,
    rounds: [],
    executionsPerSecond: f(perSecond),
    commitsPerSecond: f(perSecond * 10),
    ceilingPerSecond: f((perSecond * 10) / 8),
    fractionOfCeiling: f(0.8),
    floorPerSecond: f(floorPerSecond),
    floorCpu: { proxy: 0.8, target: 0.1, 'load generator': 0.6 },
    cpu: { intake: 0.9, postgresql: 0.6 },
    machineBusyCores: 1.9,
    duplicateEffects: duplicates,
    missingEffects: 0,
    failures: 0,
    database: {
      writingCommitsPerExecution: 6.2,
      walSyncsPerExecution: 1.4,
      statementsPerExecution: 31,
      top: [{ query: 'INSERT INTO onceport.events | x', callsPerExecution: 4.1, msPerExecution: 0.52 }],
    },
    broker: { messagesInPerExecution: 7.25, messagesOutPerExecution: 9.5, kilobytesInPerExecution: 6.1 },
  };
}

function report(overrides: Partial<BenchReport> = {}): BenchReport {
  return {
    startedAt: '2026-11-30T10:00:00.000Z',
    finishedAt: '2026-11-30T10:30:00.000Z',
    mode: 'full',
    machine: {
      cpus: 2,
      cpuModel: 'Test CPU',
      memoryGb: 22,
      node: '20.20.2',
      postgres: 'PostgreSQL 15',
      nats: 'v2.9.10',
      loadAverageStart: [1, 1, 1],
      loadAverageEnd: [2, 2, 2],
      note: 'nothing else ran',
    },
    idle: null,
    overhead: null,
    throughput: [level(1, 40), level(64, 520)],
    storm: [],
    growth: [],
    profiles: [],
    ...overrides,
  };
}

function overhead(path: OverheadSection['path'], onceportP50: number, minimum: number): OverheadSection {
  return {
    path,
    acksOnPath: path === 'embedded' ? 0 : 2,
    callsPerRound: 40,
    rounds: [],
    p50: { direct: f(2), proxy: f(8), onceport: f(onceportP50) },
    p99: { direct: f(6), proxy: f(20), onceport: f(onceportP50 * 2) },
    ratioP50: { onceportOverDirect: f(onceportP50 / 2), proxyOverDirect: f(4), onceportOverProxy: f(onceportP50 / 8) },
    ratioP99: { onceportOverDirect: f(onceportP50 / 3), onceportOverProxy: f(onceportP50 / 10) },
    commitP50: f(minimum / 5),
    publishAckP50: f(1),
    durableMinimumMs: f(minimum),
    addedP50Ms: f(onceportP50 - 2),
    addedOverMinimum: f((onceportP50 - 2) / minimum),
    addedOverProxyOverMinimum: f((onceportP50 - 8) / minimum),
    hops: {},
  };
}

function stormRound(p50: number, p99: number, floorP50: number, floorP99: number): StormRound {
  const latency = (median: number, high: number) => ({ n: 1000, p50: median, p99: high, min: median / 2, max: high });
  return {
    callers: 1000,
    effects: 1,
    distinctExecutionIds: 1,
    attached: 10,
    replayed: 989,
    failures: 0,
    firstFailure: null,
    timeToAnswer: latency(p50, p99),
    timeline: {},
    database: null,
    broker: null,
    floor: { timeToAnswer: latency(floorP50, floorP99), failures: 0, firstFailure: null },
  };
}

describe('benchmark report rendering', () => {
  it("weighs the storm's time to answer against its goal and the floor the same calls have through the proxy", () => {
    const reachable = renderMarkdown(report({ storm: [stormRound(3000, 4000, 600, 900)] }));
    expect(reachable).toContain('| 3,000 / 4,000 ms (floor 600 / 900 ms) | goal ≤ 1000 / 2000 ms: **not met** |');
    expect(reachable).toContain('| 600 / 900 | 5.00× / 4.44× |');
    const outOfReach = renderMarkdown(report({ storm: [stormRound(3000, 4000, 1200, 2500)] }));
    expect(outOfReach).toContain('goal ≤ 1000 / 2000 ms: **not met**; the floor itself is above it on this machine');
    const met = renderMarkdown(report({ storm: [stormRound(800, 1500, 300, 500)] }));
    expect(met).toContain('goal ≤ 1000 / 2000 ms: met |');
  });

  it("measures npm start's path beside the services', against its own commits-only minimum", () => {
    const text = renderMarkdown(report({ overhead: overhead('services', 47, 11.4), embedded: overhead('embedded', 14, 9) }));
    expect(text).toContain('## 1. Overhead per tool call');
    expect(text).toContain('## 1b. The embedded start (`npm start`)');
    expect(text).toContain('and 2 JetStream publish-acks');
    expect(text).toContain('no publish-ack; measured in the same rounds): one commit 1.80 ms, minimum 9.0 ms.');
    expect(text).toContain(
      '| `npm start`: p50 of one call / added p50 ÷ its durable minimum (commits only) | 14.0 ms / 1.33× | goal ≤ 1.5×: met |',
    );
  });

  it("weighs the added latency against the floor of the proxy's MCP layer plus the durable minimum", () => {
    // The fixture's proxy adds 6 ms over direct and the minimum is 8 ms: floor (6 + 8) / 8 = 1.75×; the goal leaves 0.5 × 8 − 6 = −2 ms.
    const aboveGoal = { ...overhead('services', 30, 8), floorOverMinimum: f(1.75), floorSlackMs: f(-2, -2.5, -1) };
    const text = renderMarkdown(report({ overhead: aboveGoal }));
    expect(text).toContain('| 3.50×; floor 1.75× | goal ≤ 1.5×: **not met**; the floor itself is above it on this machine |');
    expect(text).toContain('÷ the durable minimum: 1.75×.');
    expect(text).toContain(
      'The goal is **below this floor** on this machine (by 2.0 ms at the median over rounds; -2.0 (-2.5–-1.0) ms of room per round).',
    );
    // A proxy that adds 2 ms: floor 1.25×, and the goal leaves 0.5 × 8 − 2 = 2 ms; one round with less than nothing is said.
    const base = overhead('services', 30, 8);
    const belowGoal = renderMarkdown(
      report({ overhead: { ...base, p50: { ...base.p50, proxy: f(4) }, floorOverMinimum: f(1.25), floorSlackMs: f(2, -0.5, 2.5) } }),
    );
    expect(belowGoal).toContain('| 3.50×; floor 1.25× | goal ≤ 1.5×: **not met** |');
    expect(belowGoal).toContain(
      'The goal leaves 2.0 (-0.5–2.5) ms per round beyond it for everything else on the path (in some rounds less than nothing: the floor itself was above the goal).',
    );
  });

  it('states each goal as met or not met from the figures', () => {
    const met = renderMarkdown(report());
    expect(met).toContain(
      '| sustained executions/s (best level: 64 agents; floor: the same agents through the pass-through proxy) | 520 (floor 900/s) | goal ≥ 500/s: met |',
    );
    expect(met).toContain('| duplicate effects, all throughput levels | 0 | goal 0: met |');
    const missed = renderMarkdown(report({ throughput: [level(64, 120, 2)] }));
    expect(missed).toContain('| 120 (floor 900/s) | goal ≥ 500/s: **not met** |');
    const outOfReach = renderMarkdown(report({ throughput: [level(64, 120, 0, 450)] }));
    expect(outOfReach).toContain('| 120 (floor 450/s) | goal ≥ 500/s: **not met**; the floor itself is below it on this machine |');
    expect(missed).toContain('| duplicate effects, all throughput levels | 2 | goal 0: **not met** |');
  });

  it('shows medians with their spread over rounds, and names the machine and what else ran', () => {
    const text = renderMarkdown(report({ throughput: [{ ...level(16, 300), executionsPerSecond: f(280, 300, 330) }] }));
    expect(text).toContain('| 16 | 300 (280–330) |');
    expect(text).toContain('2 × Test CPU');
    expect(text).toContain('nothing else ran');
  });

  it("counts PostgreSQL's work per execution and names the costliest statements, escaping table pipes", () => {
    const text = renderMarkdown(report());
    expect(text).toContain('| 64 | 6.20 | 1.40 | 31.0 |');
    expect(text).toContain('at 64 agents, per execution');
    expect(text).toContain('| `INSERT INTO onceport.events \\| x` | 4.10 | 0.520 |');
  });

  it('counts what NATS carried per execution, and leaves the table out where nothing was counted', () => {
    expect(renderMarkdown(report())).toContain('| 64 | 7.3 | 9.5 | 6.1 |');
    const uncounted = renderMarkdown(report({ throughput: [{ ...level(64, 100), broker: null }] }));
    expect(uncounted).not.toContain('NATS per execution');
  });

  it('sets each level beside its floor, and what a call through the proxy costs in CPU', () => {
    const text = renderMarkdown(report({ throughput: [level(64, 300, 0, 600)] }));
    expect(text).toContain('| 64 | 300 | 3,000 | 375 | 80 % | 600 | 50 % | 0 | 0 | 0 |');
    expect(text).toContain('| agents | proxy | target | load generator | sum | ms per call |');
    expect(text).toContain('| 64 | 0.80 | 0.10 | 0.60 | 1.50 | 2.50 |');
  });

  it('says what limits throughput from the CPU figures', () => {
    expect(renderMarkdown(report())).toMatch(/the busiest was intake \(0\.90 core\)/);
  });

  it('measures idle from when the services settled, says when, and says when they never did', () => {
    const cpu = { intake: 0.004, authorization: 0.025, nats: 0.002 };
    const settled = renderMarkdown(
      report({ idle: { seconds: 30, cpu, profiled: false, settle: { seconds: 35, settled: true, belowShare: 0.02 } } }),
    );
    expect(settled).toContain('from when every service had spent 5 s below 2 % of a core (35 s after the stack was up');
    expect(settled).toContain('| intake | 0.4 | goal < 2 %: met |');
    expect(settled).toContain('| authorization | 2.5 | goal < 2 %: **not met** |');
    expect(settled).toContain('| nats | 0.2 |  |');

    const restless = renderMarkdown(
      report({ idle: { seconds: 30, cpu, profiled: false, settle: { seconds: 120, settled: false, belowShare: 0.02 } } }),
    );
    expect(restless).toContain('had not spent 5 s below 2 % of a core within 120 s (measured anyway)');
  });
});
