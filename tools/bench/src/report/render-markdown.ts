import type { IdleRound } from '../scenarios/idle';
import { type AcrossRounds, figure, growthPerDecade } from '../stats/summary';
import type { BenchReport, OverheadSection, ThroughputLevel } from './bench-report';
import { count, num, ratio, spread, table } from './format';
import { whatLimitsUs } from './limits';
import type { GrowthLevel } from '../scenarios/growth';
import type { StormRound } from '../scenarios/duplicate-storm';
import { ACKS_ON_ANSWER_PATH, COMMITS_ON_ANSWER_PATH, COMMITS_PER_EXECUTION } from '../scenarios/durable-steps';
import { ADDED_OVER_MINIMUM_GOAL } from '../scenarios/overhead';

export const GOALS = {
  addedOverMinimum: ADDED_OVER_MINIMUM_GOAL,
  executionsPerSecond: 500,
  idleShareOfCore: 0.02,
  stormP50Ms: 1000,
  stormP99Ms: 2000,
} as const;

/** The whole report as Markdown: medians over rounds with their spread (min–max) in brackets. */
export function renderMarkdown(report: BenchReport): string {
  const m = report.machine;
  const parts = [
    `# Onceport benchmark (${report.mode})`,
    `Run ${report.startedAt} → ${report.finishedAt}. Machine: ${m.cpus} × ${m.cpuModel}, ${num(m.memoryGb, 0)} GB RAM; Node ${m.node}, ${m.postgres}, nats-server ${m.nats}. ` +
      `Every process on this one machine: intake, authorization, dispatcher, reconciler, PostgreSQL, nats-server, the target, the baseline proxy and the load generator. ` +
      `Load average at start ${m.loadAverageStart.map((l) => num(l, 2)).join(' / ')}, at end ${m.loadAverageEnd.map((l) => num(l, 2)).join(' / ')}. ${m.note}`,
    'Figures are medians over rounds, with the spread over rounds (min–max) in brackets. Absolute times drift with the machine; the ratios are measured side by side in the same run.',
    headline(report),
  ];
  if (report.idle) parts.push(idleSection(report.idle));
  if (report.overhead) parts.push(overheadSection(report.overhead));
  if (report.embedded) parts.push(overheadSection(report.embedded));
  if (report.throughput.length > 0) parts.push(throughputSection(report.throughput));
  if (report.storm.length > 0) parts.push(stormSection(report.storm));
  if (report.growth.length > 0) parts.push(growthSection(report.growth));
  if (report.growthError) parts.push(`Growth stopped early: ${report.growthError}`);
  parts.push('## What limits us', whatLimitsUs(report));
  for (const profile of report.profiles) {
    parts.push(
      `### CPU profile: ${profile.process}`,
      `${profile.scope}. Self time as a share of the time the process was working (idle left out):`,
      table(
        ['function', 'where', 'self %'],
        profile.top.map((entry) => [`\`${entry.fn}\``, entry.where, num(entry.selfPercent, 1)]),
      ),
    );
  }
  return `${parts.join('\n\n')}\n`;
}

/** The few figures the README quotes. */
export function headline(report: BenchReport): string {
  const rows: string[][] = [];
  const o = report.overhead;
  if (o) {
    rows.push([
      'p50 of one MCP tool call: direct / pass-through proxy / Onceport',
      `${spread(o.p50.direct)} / ${spread(o.p50.proxy)} / ${spread(o.p50.onceport)} ms`,
      '',
    ]);
    rows.push([
      "added p50 ÷ durable minimum (floor: the proxy's MCP layer + the durable minimum)",
      `${ratio(o.addedOverMinimum)}${floorNote(o)}`,
      latencyVerdict(o),
    ]);
  }
  const e = report.embedded;
  if (e)
    rows.push([
      '`npm start`: p50 of one call / added p50 ÷ its durable minimum (commits only)',
      `${spread(e.p50.onceport)} ms / ${ratio(e.addedOverMinimum)}${floorNote(e)}`,
      latencyVerdict(e),
    ]);
  const best = [...report.throughput].sort((a, b) => b.executionsPerSecond.median - a.executionsPerSecond.median)[0];
  if (best) {
    const met = best.executionsPerSecond.median >= GOALS.executionsPerSecond;
    const floorBelow = best.floorPerSecond.median < GOALS.executionsPerSecond;
    rows.push([
      `sustained executions/s (best level: ${best.agents} agents; floor: the same agents through the pass-through proxy)`,
      `${spread(best.executionsPerSecond, 0)} (floor ${num(best.floorPerSecond.median, 0)}/s)`,
      verdict(met, `goal ≥ ${GOALS.executionsPerSecond}/s`) + (!met && floorBelow ? '; the floor itself is below it on this machine' : ''),
    ]);
    const dups = report.throughput.reduce((sum, level) => sum + level.duplicateEffects, 0);
    rows.push(['duplicate effects, all throughput levels', String(dups), verdict(dups === 0, 'goal 0')]);
  }
  const storm = report.storm[0];
  if (storm)
    rows.push([
      `duplicate storm: ${storm.callers} identical calls`,
      `${storm.effects} effect, ${storm.distinctExecutionIds} execution id`,
      verdict(
        report.storm.every((s) => s.effects === 1 && s.distinctExecutionIds === 1 && s.failures === 0),
        'goal 1 and 1',
      ),
    ]);
  if (storm) rows.push(stormTimeRow(report.storm));
  if (report.growth.length > 1) {
    const slope = growthPerDecade(report.growth.map((level) => ({ x: level.events, y: level.appendP50.median })));
    rows.push([
      `append p50 from ${count(report.growth[0]?.events ?? 0)} to ${count(report.growth[report.growth.length - 1]?.events ?? 0)} events`,
      `${growthWords(slope)} (${num(slope, 2)} ms per tenfold)`,
      '',
    ]);
  }
  return `## Headline\n\n${table(['figure', 'value', 'goal'], rows)}`;
}

/** The latency goal met or not, and whether the floor (MCP layer + durable steps, nothing else) is itself above it. */
function latencyVerdict(o: OverheadSection): string {
  const met = o.addedOverMinimum.median <= GOALS.addedOverMinimum;
  const floorAbove = (o.floorSlackMs?.median ?? 0) < 0;
  return verdict(met, `goal ≤ ${GOALS.addedOverMinimum}×`) + (!met && floorAbove ? '; the floor itself is above it on this machine' : '');
}

function floorSentence(floor: AcrossRounds, slack: AcrossRounds, embedded: boolean): string {
  const leaves =
    slack.median < 0
      ? ` The goal is **below this floor** on this machine (by ${num(-slack.median)} ms at the median over rounds; ${spread(slack)} ms of room per round).`
      : ` The goal leaves ${spread(slack)} ms per round beyond it for everything else on the path${slack.min < 0 ? ' (in some rounds less than nothing: the floor itself was above the goal)' : ''}.`;
  return (
    `**Floor** of that figure: the pass-through proxy's added p50 (an MCP server of the official SDK that keeps a server per session and answers over SSE, forwarding to the target; the SDK's client on the other end; nothing durable) plus the durable minimum, ÷ the durable minimum: ${ratio(floor)}. ` +
    `A gateway whose MCP layer cost what this proxy's does and that added nothing but its durable steps — no hop between ${embedded ? 'parts' : 'processes'}, no read before a decision — would show this.${leaves}`
  );
}

function floorNote(o: OverheadSection): string {
  return o.floorOverMinimum && o.floorSlackMs ? `; floor ${ratio(o.floorOverMinimum)}` : '';
}

function verdict(met: boolean, goal: string): string {
  return met ? `${goal}: met` : `${goal}: **not met**`;
}

function overheadSection(o: OverheadSection): string {
  const embedded = o.path === 'embedded';
  const rows = [
    ['direct (undici → target)', spread(o.p50.direct), spread(o.p99.direct), '1.00×'],
    ['pass-through MCP proxy', spread(o.p50.proxy), '', ratio(o.ratioP50.proxyOverDirect)],
    [
      embedded ? 'Onceport over MCP, `npm start`' : 'Onceport over MCP',
      spread(o.p50.onceport),
      spread(o.p99.onceport),
      ratio(o.ratioP50.onceportOverDirect),
    ],
  ];
  const minimum = embedded
    ? `**Durable minimum of \`npm start\`** (one process, events handed on in-process after their commit, its own embedded PostgreSQL: the same ${COMMITS_ON_ANSWER_PATH} sequential commits on that PostgreSQL, no publish-ack; measured in the same rounds): ` +
      `one commit ${spread(o.commitP50, 2)} ms, minimum ${spread(o.durableMinimumMs)} ms.`
    : `**Durable minimum** (counted from the code path: ${COMMITS_ON_ANSWER_PATH} sequential PostgreSQL commits — intent claim + ExecutionAccepted, ExecutionAuthorized, DispatchStarted, OutcomeObserved; the answer's resumable SSE event is sent before its commit — and ${o.acksOnPath ?? ACKS_ON_ANSWER_PATH} JetStream publish-acks — ExecutionAccepted and ExecutionAuthorized published by their writers; measured in the same rounds): ` +
      `one commit ${spread(o.commitP50, 2)} ms, one publish-ack ${spread(o.publishAckP50, 2)} ms, minimum ${spread(o.durableMinimumMs)} ms.`;
  return [
    embedded ? '## 1b. The embedded start (`npm start`)' : '## 1. Overhead per tool call',
    `${o.rounds.length} rounds of ${o.callsPerRound} calls each way, interleaved in a random order per call (one MCP session per way; every call a new intent: a deployment to the test target).`,
    table(
      ['way', 'p50 ms', 'p99 ms', 'p50 ÷ direct'],
      rows.map((r, i) => (i === 1 ? [r[0] as string, r[1] as string, spread(o.p99.proxy), r[3] as string] : r)),
    ),
    `Onceport ÷ proxy: p50 ${ratio(o.ratioP50.onceportOverProxy)}, p99 ${ratio(o.ratioP99.onceportOverProxy)}. Onceport ÷ direct at p99: ${ratio(o.ratioP99.onceportOverDirect)}.`,
    minimum,
    `Where an Onceport call's time goes (from the events' \`recorded_at\`; median over all calls, range over calls in brackets${embedded ? '; in this process the hops between services are in-process calls, not relay and JetStream' : ''}):`,
    table(
      ['hop', 'ms'],
      Object.entries(o.hops).map(([hop, f]) => [hop, spread(f)]),
    ),
    `Added p50 (Onceport − direct): ${spread(o.addedP50Ms)} ms = **${ratio(o.addedOverMinimum)} the durable minimum** (goal ≤ ${GOALS.addedOverMinimum}×: ${o.addedOverMinimum.median <= GOALS.addedOverMinimum ? 'met' : '**not met**'}). Over the proxy instead of direct: ${ratio(o.addedOverProxyOverMinimum)}.`,
    ...(o.floorOverMinimum && o.floorSlackMs ? [floorSentence(o.floorOverMinimum, o.floorSlackMs, embedded)] : []),
  ].join('\n\n');
}

function throughputSection(levels: readonly ThroughputLevel[]): string {
  const processes = [...new Set(levels.flatMap((level) => Object.keys(level.cpu)))];
  const rows = levels.map((level) => [
    String(level.agents),
    spread(level.executionsPerSecond, 0),
    spread(level.commitsPerSecond, 0),
    spread(level.ceilingPerSecond, 0),
    spread(
      {
        ...level.fractionOfCeiling,
        median: level.fractionOfCeiling.median * 100,
        min: level.fractionOfCeiling.min * 100,
        max: level.fractionOfCeiling.max * 100,
      },
      0,
      ' %',
    ),
    spread(level.floorPerSecond, 0),
    num((level.executionsPerSecond.median / level.floorPerSecond.median) * 100, 0) + ' %',
    String(level.duplicateEffects),
    String(level.missingEffects),
    String(level.failures),
  ]);
  const floorProcesses = [...new Set(levels.flatMap((level) => Object.keys(level.floorCpu)))];
  const floorCpuRows = levels.map((level) => [
    String(level.agents),
    ...floorProcesses.map((p) => num(level.floorCpu[p] ?? Number.NaN, 2)),
    num(
      Object.values(level.floorCpu).reduce((a, b) => a + b, 0),
      2,
    ),
    num(
      level.floorPerSecond.median > 0
        ? (Object.values(level.floorCpu).reduce((a, b) => a + b, 0) / level.floorPerSecond.median) * 1000
        : Number.NaN,
      2,
    ),
  ]);
  const cpuRows = levels.map((level) => [
    String(level.agents),
    ...processes.map((p) => num(level.cpu[p] ?? Number.NaN, 2)),
    num(
      Object.values(level.cpu).reduce((a, b) => a + b, 0),
      2,
    ),
    num(level.machineBusyCores, 2),
  ]);
  return [
    '## 2. Throughput',
    `N agents, each its own MCP session, call back to back with distinct intents. Ceiling = PostgreSQL single-event commits per second with N concurrent writers (measured right after each round) ÷ ${COMMITS_PER_EXECUTION} writing commits per execution. Floor = right after each round, the same agents for the same time through the pass-through proxy (a session each, the official SDK on both ends, one HTTP call to the target per call, nothing recorded): what the machine sustains before any durability. Onceport cannot beat it; a floor below the goal means the goal is out of this machine's reach. Duplicates are checked at the target (its own idempotency off): an execution id sent twice, or one intent applied twice. Goal: ≥ ${GOALS.executionsPerSecond}/s.`,
    table(
      [
        'agents',
        'executions/s',
        'commits/s',
        'ceiling/s',
        'of ceiling',
        'proxy floor/s',
        'of floor',
        'duplicate effects',
        'missing effects',
        'failed calls',
      ],
      rows,
    ),
    "CPU per process, in cores (1.00 = one core busy the whole round; PostgreSQL = the backends serving this database), their sum, and the whole machine's busy cores (everyone's work, ours included):",
    table(['agents', ...processes, 'ours', 'machine'], cpuRows),
    "The floor's CPU, in cores, and what one call through the proxy costs the three processes together (ms of CPU per call):",
    table(['agents', ...floorProcesses, 'sum', 'ms per call'], floorCpuRows),
    ...databaseCost(levels),
  ].join('\n\n');
}

/** Counted, not timed: what PostgreSQL did per execution (the cost model's database side). */
function databaseCost(levels: readonly ThroughputLevel[]): string[] {
  const counted = levels.filter((level) => level.database);
  const best = [...counted].sort((a, b) => b.executionsPerSecond.median - a.executionsPerSecond.median)[0];
  if (!best?.database) return [];
  return [
    "PostgreSQL per execution, counted over each level's last round: transactions that wrote (each flushes WAL at commit), WAL flushes (fewer when commits share one), and statements run by every client of the database (`pg_stat_statements`):",
    table(
      ['agents', 'writing commits', 'WAL flushes', 'statements'],
      counted.map((level) => [
        String(level.agents),
        num(level.database?.writingCommitsPerExecution ?? Number.NaN, 2),
        num(level.database?.walSyncsPerExecution ?? Number.NaN, 2),
        num(level.database?.statementsPerExecution ?? Number.NaN, 1),
      ]),
    ),
    ...brokerCost(counted),
    `The statements that took the most server time at ${best.agents} agents, per execution:`,
    table(
      ['statement', 'calls', 'ms'],
      best.database.top.map((s) => [`\`${s.query.replace(/\|/g, '\\|')}\``, num(s.callsPerExecution, 2), num(s.msPerExecution, 3)]),
    ),
  ];
}

/** Counted by nats-server: what the broker carried per execution (the cost model's NATS side). */
function brokerCost(levels: readonly ThroughputLevel[]): string[] {
  const counted = levels.filter((level) => level.broker);
  if (counted.length === 0) return [];
  return [
    "NATS per execution, counted by the server over each level's last round (`/varz`): messages it received from every client (the writers' sends, the relay's publishes, acks, JetStream API requests) and sent (deliveries, replies), and kB received:",
    table(
      ['agents', 'messages in', 'messages out', 'kB in'],
      counted.map((level) => [
        String(level.agents),
        num(level.broker?.messagesInPerExecution ?? Number.NaN, 1),
        num(level.broker?.messagesOutPerExecution ?? Number.NaN, 1),
        num(level.broker?.kilobytesInPerExecution ?? Number.NaN, 1),
      ]),
    ),
  ];
}

/** The storm's time to answer against its goal, beside the floor the same calls have on this machine. */
function stormTimeRow(rounds: readonly StormRound[]): string[] {
  const median = (pick: (s: StormRound) => number): number => figure(rounds, pick).median;
  const [p50, p99] = [median((s) => s.timeToAnswer.p50), median((s) => s.timeToAnswer.p99)];
  const [floorP50, floorP99] = [median((s) => s.floor.timeToAnswer.p50), median((s) => s.floor.timeToAnswer.p99)];
  const met = p50 <= GOALS.stormP50Ms && p99 <= GOALS.stormP99Ms;
  const floorAbove = floorP50 > GOALS.stormP50Ms || floorP99 > GOALS.stormP99Ms;
  return [
    'duplicate storm: time to answer every caller, p50 / p99 (floor: the same calls through the pass-through proxy)',
    `${num(p50, 0)} / ${num(p99, 0)} ms (floor ${num(floorP50, 0)} / ${num(floorP99, 0)} ms)`,
    verdict(met, `goal ≤ ${GOALS.stormP50Ms} / ${GOALS.stormP99Ms} ms`) +
      (!met && floorAbove ? '; the floor itself is above it on this machine' : ''),
  ];
}

function stormSection(rounds: readonly StormRound[]): string {
  const rows = rounds.map((s, i) => [
    String(i + 1),
    String(s.callers),
    String(s.effects),
    String(s.distinctExecutionIds),
    String(s.attached),
    String(s.replayed),
    String(s.failures),
    num(s.timeToAnswer.p50, 0),
    num(s.timeToAnswer.p99, 0),
    `${num(s.floor.timeToAnswer.p50, 0)} / ${num(s.floor.timeToAnswer.p99, 0)}${s.floor.failures > 0 ? ` (${s.floor.failures} failed)` : ''}`,
    `${ratio1(s.timeToAnswer.p50 / s.floor.timeToAnswer.p50)} / ${ratio1(s.timeToAnswer.p99 / s.floor.timeToAnswer.p99)}`,
  ]);
  return [
    '## 3. Duplicate storm',
    'Identical `send_email` calls (same recipient and campaign), each from its own MCP session, all started at once. Attached = joined the in-flight execution; replayed = answered from the ledger after it completed.',
    'Floor = right after, the same number of MCP calls at once through the pass-through proxy (a session per caller, the official SDK on both ends, one HTTP call to the target each, nothing recorded): what answering them costs on this machine before any durability. The storm cannot beat it; a floor above the goal means the goal is out of this machine’s reach, as the commit ceiling says for throughput.',
    table(
      [
        'round',
        'callers',
        'effects at target',
        'execution ids',
        'attached',
        'replayed',
        'failed',
        'p50 ms',
        'p99 ms',
        'floor p50 / p99 ms',
        'storm ÷ floor, p50 / p99',
      ],
      rows,
    ),
    ...rounds.filter((s) => s.firstFailure).map((s) => `First failure: ${s.firstFailure}`),
    ...rounds.filter((s) => s.floor.firstFailure).map((s) => `First failure over the proxy: ${s.floor.firstFailure}`),
  ].join('\n\n');
}

function ratio1(value: number): string {
  return Number.isFinite(value) ? `${num(value, 2)}×` : '–';
}

function growthSection(levels: readonly GrowthLevel[]): string {
  const rows = levels.map((g) => [
    count(g.events),
    `${spread(g.appendP50, 2)} / ${spread(g.appendP99, 2)}`,
    `${spread(g.retryMatchingP50, 2)} / ${spread(g.retryMatchingP99, 2)}`,
    `${spread(g.rebuildOneP50, 2)} / ${spread(g.rebuildOneP99, 2)}`,
    `${num(g.projectionEventsPerSecond, 0)} (${count(g.projectionEventsMeasured)})`,
    `${num(g.verifyEventsPerSecond, 0)} (${count(g.verifyEventsMeasured)})${g.verifyBroken ? ` BROKEN: ${g.verifyBroken}` : ''}`,
    num(g.seedSeconds, 0),
  ]);
  const slope = (pick: (g: GrowthLevel) => number): string => {
    const s = growthPerDecade(levels.map((g) => ({ x: g.events, y: pick(g) })));
    return `${growthWords(s)} (${num(s, 3)} ms per tenfold)`;
  };
  return [
    '## 4. Growth',
    "The store is bulk-loaded (not through the API) with clones of a real completed execution (its intent claim and five lifecycle events, hashes and chain links computed as the trigger does), then measured at each size. Append = intake's acceptance commit (intent claim + ExecutionAccepted in one transaction); retry matching = read the intent's claims, load and fold each claimed execution, run the matching rule; rebuild = load and fold one execution. Projection rebuild (execution-matches, from the start of the store, batches of 500 with a checkpoint) and `audit verify` (the chain verifier over the database) run for a fixed time budget; the events they covered are in brackets.",
    table(
      [
        'events in store',
        'append p50 / p99 ms',
        'retry matching p50 / p99 ms',
        'rebuild one execution p50 / p99 ms',
        'projection rebuild events/s',
        'audit verify events/s',
        'seed s',
      ],
      rows,
    ),
    `How each grows with the store (least-squares slope of p50 against log10(size)): append ${slope((g) => g.appendP50.median)}; retry matching ${slope((g) => g.retryMatchingP50.median)}; rebuild one execution ${slope((g) => g.rebuildOneP50.median)}.`,
  ].join('\n\n');
}

function growthWords(slopeMsPerDecade: number): string {
  if (!Number.isFinite(slopeMsPerDecade)) return 'n/a';
  return Math.abs(slopeMsPerDecade) < 0.25 ? 'flat' : slopeMsPerDecade > 0 ? 'grows' : 'falls';
}

const SERVICES = ['intake', 'authorization', 'dispatcher', 'reconciler'] as const;

function settledText(settle: IdleRound['settle']): string {
  const below = `${num(settle.belowShare * 100, 0)} % of a core`;
  return settle.settled
    ? `from when every service had spent 5 s below ${below} (${num(settle.seconds, 0)} s after the stack was up: a process that just started shrinks the heap its start left behind with full collections in its first minute)`
    : `although the services had not spent 5 s below ${below} within ${num(settle.seconds, 0)} s (measured anyway)`;
}

function idleSection(idle: IdleRound): string {
  const rows = Object.entries(idle.cpu).map(([process, share]) => [
    process,
    num(share * 100, 1),
    (SERVICES as readonly string[]).includes(process)
      ? verdict(share < GOALS.idleShareOfCore, `goal < ${GOALS.idleShareOfCore * 100} %`)
      : '',
  ]);
  return [
    '## 0. Idle',
    `No traffic for ${num(idle.seconds, 0)} s, ${settledText(idle.settle)}: each process's CPU as a share of one core (its polls, heartbeats and sweeps)` +
      (idle.profiled
        ? ', under the sampling profiler (which alone costs a few %: run with --without-profiles for the goal).'
        : ', without the profiler.'),
    table(['process', '% of a core', 'goal'], rows),
  ].join('\n\n');
}
