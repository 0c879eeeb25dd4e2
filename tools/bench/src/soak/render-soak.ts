import type { SoakReport } from './run-soak';

const ms = (value: number): string => (Number.isFinite(value) ? `${Math.round(value)} ms` : '—');
const table = (header: readonly string[], rows: readonly (readonly string[])[]): string =>
  [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');

/** The soak report in Markdown, beside the bench's in tools/bench/reports. */
export function renderSoak(report: SoakReport): string {
  const { verdict: v, machine: m } = report;
  const passed = v.duplicates === 0 && v.lost === 0 && v.stuck === 0 && v.splitIdentities === 0 && report.chain.ok;
  const slopes = report.rss.filter((r) => r.slopeMiBPerMinute !== null);
  return `# Onceport soak with faults

${passed ? '**Passed**' : '**FAILED**'}: ${v.duplicates} duplicate, ${v.lost} lost, ${v.stuck} stuck executions; ${v.splitIdentities} intents named by two execution ids; hash chain ${report.chain.ok ? 'verified' : 'BROKEN'} (${report.chain.eventsChecked} events).

- Started ${report.startedAt}, finished ${report.finishedAt}. \`npm run soak\`${report.options.note ? `; meanwhile: ${report.options.note}` : ''}.
- Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGb.toFixed(0)} GiB, Node ${m.node}, ${m.postgres} (a private cluster), nats-server ${m.nats}; load average ${m.loadAverageStart.map((x) => x.toFixed(2)).join(' ')} → ${m.loadAverageEnd.map((x) => x.toFixed(2)).join(' ')}.
- Installation: ${report.options.replicas} processes of each service, one nats-server (JetStream, file store), one PostgreSQL, the test target — all on these cores with the load generator.
- Load: ${report.ratePerSecond.toFixed(1)} distinct deployments/s over REST for ${report.loadSeconds} s (an open loop: a slow gateway does not slow it), round robin over the intake replicas; ${
    report.calibration
      ? `${(report.options.loadShare * 100).toFixed(0)} % of the ${report.calibration.executionsPerSecond.toFixed(1)}/s this installation reached with ${report.calibration.callers} closed-loop callers for ${report.calibration.seconds} s just before`
      : 'the rate was given'
  }. A call that fails on the way is retried with the same intent on the next replica (backoff 0.2–2 s, given up after 120 s). ${report.shed} calls shed by the generator's in-flight cap.

## What the agents saw and what the world saw

${table(
  [
    'intents',
    'answered',
    'given up (applied anyway)',
    'retried',
    'executions',
    'effects at the target',
    'duplicates',
    'lost',
    'stuck',
    'needs_review',
  ],
  [
    [
      String(v.intents),
      String(v.answered),
      `${v.unanswered} (${v.appliedUnanswered})`,
      String(v.retriedIntents),
      String(v.executions),
      String(v.effects),
      String(v.duplicates),
      String(v.lost),
      String(v.stuck),
      String(v.needsReview),
    ],
  ],
)}

${table(
  ['', 'p50', 'p99', 'max'],
  [
    ['accepted → settled', ms(v.settle.p50), ms(v.settle.p99), ms(v.settle.max)],
    ['intent → answer (retries included)', ms(v.answer.p50), ms(v.answer.p99), ms(v.answer.max)],
  ],
)}

Drained ${report.drainedAfterSeconds === null ? `— not within ${report.options.drainSeconds} s` : `${report.drainedAfterSeconds.toFixed(0)} s after the load stopped`}. Final states: ${Object.entries(
    v.states,
  )
    .map(([state, n]) => `${state} ${n}`)
    .join(', ')}.

**Why calls were retried** (the first error of each retried intent): ${
    Object.entries(report.retryCauses)
      .sort(([, a], [, b]) => b - a)
      .map(([cause, n]) => `${n} × ${cause}`)
      .join('; ') || 'none'
  }.

## The nemesis

A fault every ${report.options.faultEverySeconds} s, none in the first and last period; a killed service or nats-server is started again after ${report.options.downSeconds} s.

${table(
  ['at', 'fault', 'back after'],
  report.faults.map((f) => [`${f.atSeconds} s`, f.fault, f.error ? `failed: ${f.error}` : ms(f.backAfterMs ?? Number.NaN)]),
)}

## Memory

RSS of every process life (a restarted replica is a new life), sampled every 5 s; the slope is a least-squares fit after the first 60 s of the life, for lives of 3 minutes or more. PostgreSQL's backends are left out: they come and go with the pools and share its buffers.

${table(
  ['process', 'pid', 'life', 'first', 'last', 'peak', 'slope'],
  [...report.rss]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((r) => [
      r.name,
      String(r.pid),
      `${r.lifeSeconds.toFixed(0)} s`,
      `${r.firstMiB.toFixed(0)} MiB`,
      `${r.lastMiB.toFixed(0)} MiB`,
      `${r.peakMiB.toFixed(0)} MiB`,
      r.slopeMiBPerMinute === null ? '—' : `${r.slopeMiBPerMinute >= 0 ? '+' : ''}${r.slopeMiBPerMinute.toFixed(2)} MiB/min`,
    ]),
)}

Largest slope: ${
    slopes.length === 0
      ? '— (no life long enough)'
      : (() => {
          const top = slopes.reduce((a, b) => ((b.slopeMiBPerMinute ?? 0) > (a.slopeMiBPerMinute ?? 0) ? b : a));
          return `${top.name} (pid ${top.pid}), ${(top.slopeMiBPerMinute ?? 0).toFixed(2)} MiB/min over ${top.lifeSeconds.toFixed(0)} s`;
        })()
  }.
`;
}
