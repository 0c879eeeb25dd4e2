import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { directCaller, mcpCaller } from './callers/callers';
import type { BenchOptions } from './bench-options';
import { type GrowthLevel, growthScenario } from './scenarios/growth';
import { captureTemplate, type ExecutionTemplate } from './growth/template';
import { machineInfo } from './machine-info';
import type { BenchReport, OverheadSection, ProfileSummary, ThroughputLevel } from './report/bench-report';
import { findProfile, topSelfTime } from './cpu/cpu-profile';
import { WORKSPACE_ROOT } from './stack/target-process';
import { renderMarkdown } from './report/render-markdown';
import { type StormRound, stormRound } from './scenarios/duplicate-storm';
import { ACKS_ON_ANSWER_PATH, durableSteps } from './scenarios/durable-steps';
import { freshTarget } from './scenarios/fresh-target';
import { hopBreakdown } from './scenarios/hop-breakdown';
import { type IdleRound, idleRound } from './scenarios/idle';
import { type OverheadRound, overheadRound, warmUp } from './scenarios/overhead';
import { type ThroughputRound, throughputRound } from './scenarios/throughput';
import { startGateway } from '@onceport/gateway-harness';
import { Pool } from 'pg';
import { AGENT_ID, AGENT_KEY, BENCH_LIMITS, CREDENTIALS, PROFILED_SERVICES, startBenchStack } from './stack/bench-stack';
import { startProxyProcess } from './stack/proxy-process';
import { type BenchPostgres, startBenchPostgres } from './stack/bench-postgres';
import { figure } from './stats/summary';

export const REPORTS_DIR = join(__dirname, '../reports');

/** Runs the chosen scenarios against real processes and writes `reports/<name>.md` and `.json`. */
export async function runBench(options: BenchOptions, log: (line: string) => void): Promise<BenchReport> {
  const startedAt = new Date().toISOString();
  const postgres = await startBenchPostgres();
  try {
    return await runOn(postgres, startedAt, options, log);
  } finally {
    await postgres.stop();
  }
}

async function runOn(postgres: BenchPostgres, startedAt: string, options: BenchOptions, log: (line: string) => void): Promise<BenchReport> {
  const profileDir = mkdtempSync(join(tmpdir(), 'onceport-bench-prof-'));
  const stack = await startBenchStack({
    label: options.mode,
    serverUrl: postgres.url,
    env: { ONCEPORT_PG_POOL_MAX: String(options.poolMax) },
    ...(options.profiles ? { profileTo: profileDir } : {}),
  });
  const machine = await machineInfo(stack.db.pool);
  let overhead: OverheadSection | null = null;
  let embedded: OverheadSection | null = null;
  let idle: IdleRound | null = null;
  const throughput: ThroughputLevel[] = [];
  const storm: StormRound[] = [];
  let template: ExecutionTemplate | null = null;
  try {
    await freshTarget(stack.target.url);
    const steps = await durableSteps(stack.db.pool, stack.nats.url);
    try {
      // First, before any traffic: what the services cost by just running.
      if (options.scenarios.has('idle')) {
        idle = await idleRound(stack, options.idleSeconds, options.profiles);
        log(
          `idle: ${Object.entries(idle.cpu)
            .map(([p, share]) => `${p} ${(share * 100).toFixed(1)} %`)
            .join(', ')}`,
        );
      }
      if (options.scenarios.has('overhead'))
        overhead = await runOverhead(stack, steps, options, log, {
          path: 'services',
          onceportUrl: stack.intake.url,
          pool: stack.db.pool,
          acksOnPath: ACKS_ON_ANSWER_PATH,
        });
      if (options.scenarios.has('embedded')) embedded = await runEmbedded(stack, options, log);
      if (options.scenarios.has('throughput')) {
        for (const agents of options.agents) throughput.push(await runThroughput(stack, steps, agents, options, log));
      }
      if (options.scenarios.has('storm')) {
        for (let r = 0; r < options.stormRounds; r++) {
          log(`storm round ${r + 1}: ${options.stormCallers} identical calls`);
          const round = await stormRound(stack, options.stormCallers, r);
          log(
            `storm round ${r + 1}: p50 ${round.timeToAnswer.p50.toFixed(0)} ms, p99 ${round.timeToAnswer.p99.toFixed(0)} ms; timeline ${JSON.stringify(round.timeline)}`,
          );
          if (round.database)
            log(
              `storm per caller: ${round.database.statementsPerExecution.toFixed(1)} statements, ${round.database.writingCommitsPerExecution.toFixed(2)} writing commits; ${round.database.top
                .slice(0, 8)
                .map((s) => `${s.callsPerExecution.toFixed(2)}× ${s.query.slice(0, 90)}`)
                .join(' | ')}`,
            );
          if (round.broker)
            log(
              `storm per caller: ${round.broker.messagesInPerExecution.toFixed(1)} NATS messages in, ${round.broker.messagesOutPerExecution.toFixed(1)} out`,
            );
          storm.push(round);
        }
      }
      if (options.scenarios.has('growth')) {
        // A real execution as the seeding template: make sure there is one.
        await (await mcpCaller(`${stack.intake.url}/mcp`, AGENT_KEY, 'template')).call('template', `v${Date.now()}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
        template = await captureTemplate(stack.db.pool);
      }
    } finally {
      await steps.close();
    }
  } finally {
    await stack.stop();
  }
  const profiles = serviceProfiles(profileDir);
  const growth: GrowthLevel[] = [];
  let growthError: string | null = null;
  const report = (): BenchReport => ({
    startedAt,
    finishedAt: new Date().toISOString(),
    mode: options.mode,
    machine: {
      ...machine,
      postgres: `${machine.postgres} on ${postgres.description}, ${options.poolMax} connections in each service's pool`,
      loadAverageEnd: loadavg(),
      note: options.note,
    },
    idle,
    overhead,
    embedded,
    throughput,
    storm,
    growth,
    growthError,
    profiles,
  });
  // Written now and after each growth level: a long run stopped late still leaves its figures.
  writeReport(report(), options.outName);
  if (template) {
    log(`growth: levels ${options.growthLevels.join(', ')}`);
    try {
      await growthScenario(template, {
        levels: options.growthLevels,
        rounds: options.growthRounds,
        samplesPerRound: options.growthSamples,
        budgetMs: options.growthBudgetMs,
        log,
        serverUrl: postgres.url,
        onLevel: (level) => {
          growth.push(level);
          writeReport(report(), options.outName);
        },
      });
    } catch (error) {
      // Keep what the other scenarios (and the levels done) measured; say what broke.
      growthError = error instanceof Error ? error.message : String(error);
      log(`growth failed: ${growthError}`);
    }
  }
  const final = report();
  writeReport(final, options.outName);
  return final;
}

function serviceProfiles(dir: string): ProfileSummary[] {
  const profiles = PROFILED_SERVICES.flatMap((service) => {
    const path = existsSync(join(dir, service)) ? findProfile(join(dir, service)) : null;
    if (!path) return [];
    const top = topSelfTime(path, WORKSPACE_ROOT);
    return [{ process: service, scope: 'its whole life in this run: start-up, every scenario above, shutdown', top }];
  });
  // BENCH_KEEP_PROFILES=1 keeps the .cpuprofile files (open them in Chrome's DevTools) and says where.
  if (process.env['BENCH_KEEP_PROFILES']) process.stderr.write(`CPU profiles kept in ${dir}\n`);
  else rmSync(dir, { recursive: true, force: true });
  return profiles;
}

export function writeReport(report: BenchReport, name: string): void {
  mkdirSync(REPORTS_DIR, { recursive: true });
  writeFileSync(join(REPORTS_DIR, `${name}.md`), renderMarkdown(report));
  writeFileSync(join(REPORTS_DIR, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
}

/** Which Onceport the overhead rounds call, where its events are, and what its durable minimum counts. */
interface OverheadPath {
  readonly path: OverheadSection['path'];
  readonly onceportUrl: string;
  readonly pool: Pool;
  readonly acksOnPath: number;
}

/**
 * \`npm start\` (one process, in-process delivery, its own embedded PostgreSQL) measured like the
 * services: the same target and proxy, its durable minimum the same commits on its own PostgreSQL
 * and no publish-ack (it has no JetStream).
 */
async function runEmbedded(
  stack: Awaited<ReturnType<typeof startBenchStack>>,
  options: BenchOptions,
  log: (line: string) => void,
): Promise<OverheadSection> {
  log('embedded: starting npm start (its own PostgreSQL)');
  const gateway = await startGateway({
    mode: 'embedded',
    targetUrl: stack.target.url,
    actors: [{ id: AGENT_ID, key: AGENT_KEY, tools: '*', limits: BENCH_LIMITS }],
    env: { ...CREDENTIALS, ONCEPORT_ANSWER_WAIT_MS: '30000', LOG_LEVEL: 'warn' },
  });
  const pool = new Pool({ connectionString: gateway.databaseUrl, max: 4 });
  pool.on('error', () => undefined); // the start's PostgreSQL stops first at the end
  try {
    const steps = await durableSteps(pool, stack.nats.url);
    try {
      return await runOverhead(stack, steps, options, log, { path: 'embedded', onceportUrl: gateway.intakeUrl, pool, acksOnPath: 0 });
    } finally {
      await steps.close();
    }
  } finally {
    await pool.end();
    await gateway.stop();
  }
}

async function runOverhead(
  stack: Awaited<ReturnType<typeof startBenchStack>>,
  steps: Awaited<ReturnType<typeof durableSteps>>,
  options: BenchOptions,
  log: (line: string) => void,
  way: OverheadPath,
): Promise<OverheadSection> {
  const proxy = await startProxyProcess(stack.target.url);
  const proxyAgent = await mcpCaller(proxy.url, null, 'bench-proxy-agent');
  const onceportAgent = await mcpCaller(`${way.onceportUrl}/mcp`, AGENT_KEY, 'bench-overhead-agent');
  const callers = { direct: directCaller(stack.target.url), proxy: proxyAgent.call, onceport: onceportAgent.call };
  const rounds: OverheadRound[] = [];
  try {
    await warmUp(callers, steps, 5);
    for (let r = 0; r < options.overheadRounds; r++) {
      const round = await overheadRound(callers, steps, options.overheadCalls, way.acksOnPath);
      log(
        `overhead (${way.path}) round ${r + 1}: p50 direct ${round.direct.p50.toFixed(1)} proxy ${round.proxy.p50.toFixed(1)} onceport ${round.onceport.p50.toFixed(1)} ms; minimum ${round.durableMinimumMs.toFixed(1)} ms`,
      );
      rounds.push(round);
    }
  } finally {
    await Promise.all([proxyAgent.close(), onceportAgent.close()]);
    await proxy.stop();
  }
  return {
    path: way.path,
    acksOnPath: way.acksOnPath,
    callsPerRound: options.overheadCalls,
    rounds,
    p50: {
      direct: figure(rounds, (r) => r.direct.p50),
      proxy: figure(rounds, (r) => r.proxy.p50),
      onceport: figure(rounds, (r) => r.onceport.p50),
    },
    p99: {
      direct: figure(rounds, (r) => r.direct.p99),
      proxy: figure(rounds, (r) => r.proxy.p99),
      onceport: figure(rounds, (r) => r.onceport.p99),
    },
    ratioP50: {
      onceportOverDirect: figure(rounds, (r) => r.onceport.p50 / r.direct.p50),
      proxyOverDirect: figure(rounds, (r) => r.proxy.p50 / r.direct.p50),
      onceportOverProxy: figure(rounds, (r) => r.onceport.p50 / r.proxy.p50),
    },
    ratioP99: {
      onceportOverDirect: figure(rounds, (r) => r.onceport.p99 / r.direct.p99),
      onceportOverProxy: figure(rounds, (r) => r.onceport.p99 / r.proxy.p99),
    },
    commitP50: figure(rounds, (r) => r.commit.p50),
    publishAckP50: figure(rounds, (r) => r.publishAck.p50),
    durableMinimumMs: figure(rounds, (r) => r.durableMinimumMs),
    addedP50Ms: figure(rounds, (r) => r.addedP50Ms),
    addedOverMinimum: figure(rounds, (r) => r.addedP50Ms / r.durableMinimumMs),
    addedOverProxyOverMinimum: figure(rounds, (r) => r.addedOverProxyP50Ms / r.durableMinimumMs),
    floorOverMinimum: figure(rounds, (r) => r.floor.overMinimum),
    floorSlackMs: figure(rounds, (r) => r.floor.slackMs),
    hops: await hopBreakdown(
      way.pool,
      rounds.flatMap((r) => r.onceportCalls),
    ),
  };
}

async function runThroughput(
  stack: Awaited<ReturnType<typeof startBenchStack>>,
  steps: Awaited<ReturnType<typeof durableSteps>>,
  agents: number,
  options: BenchOptions,
  log: (line: string) => void,
): Promise<ThroughputLevel> {
  const rounds: ThroughputRound[] = [];
  for (let r = 0; r < options.throughputRounds; r++) {
    const round = await throughputRound(stack, steps, agents, options.throughputSeconds, options.commitSeconds);
    log(
      `throughput ${agents} agents round ${r + 1}: ${round.executionsPerSecond.toFixed(0)}/s (ceiling ${round.ceilingPerSecond.toFixed(0)}/s, proxy floor ${round.floor.callsPerSecond.toFixed(0)}/s${round.floor.failures ? `, ${round.floor.failures} failed: ${round.floor.firstFailure?.slice(0, 200)}` : ''}), duplicates ${round.duplicateEffects}, missing ${round.missingEffects}, failed ${round.failures}${round.firstFailure ? ` (${round.firstFailure.slice(0, 200)})` : ''}`,
    );
    rounds.push(round);
  }
  const processes = [...new Set(rounds.flatMap((r) => Object.keys(r.cpu)))];
  return {
    agents,
    rounds,
    executionsPerSecond: figure(rounds, (r) => r.executionsPerSecond),
    commitsPerSecond: figure(rounds, (r) => r.commitsPerSecond),
    ceilingPerSecond: figure(rounds, (r) => r.ceilingPerSecond),
    fractionOfCeiling: figure(rounds, (r) => r.fractionOfCeiling),
    floorPerSecond: figure(rounds, (r) => r.floor.callsPerSecond),
    floorCpu: Object.fromEntries(
      [...new Set(rounds.flatMap((r) => Object.keys(r.floor.cpu)))].map((p) => [
        p,
        figure(rounds, (r) => r.floor.cpu[p] ?? Number.NaN).median,
      ]),
    ),
    cpu: Object.fromEntries(processes.map((p) => [p, figure(rounds, (r) => r.cpu[p] ?? Number.NaN).median])),
    machineBusyCores: figure(rounds, (r) => r.machineBusyCores).median,
    duplicateEffects: rounds.reduce((sum, r) => sum + r.duplicateEffects, 0),
    missingEffects: rounds.reduce((sum, r) => sum + r.missingEffects, 0),
    failures: rounds.reduce((sum, r) => sum + r.failures, 0),
    database: rounds[rounds.length - 1]?.database ?? null,
    broker: rounds[rounds.length - 1]?.broker ?? null,
  };
}
