import type { Pool } from 'pg';
import { migrate } from '@onceport/service-kit';
import { createBenchDatabase } from '../stack/bench-database';
import { type AcrossRounds, acrossRounds, summarize } from '../stats/summary';
import {
  appendLatency,
  auditVerifyRate,
  projectionRebuildRate,
  rebuildOneLatency,
  retryMatchingLatency,
  sampleExecutions,
} from '../growth/growth-probes';
import { eventsPerExecution, seedExecutions } from '../growth/seed-store';
import type { ExecutionTemplate } from '../growth/template';

export interface GrowthLevel {
  readonly events: number;
  readonly seedSeconds: number;
  /** p50 per round (ms), median and spread over rounds. */
  readonly appendP50: AcrossRounds;
  readonly retryMatchingP50: AcrossRounds;
  readonly rebuildOneP50: AcrossRounds;
  readonly appendP99: AcrossRounds;
  readonly retryMatchingP99: AcrossRounds;
  readonly rebuildOneP99: AcrossRounds;
  readonly projectionEventsPerSecond: number;
  readonly projectionEventsMeasured: number;
  readonly verifyEventsPerSecond: number;
  readonly verifyEventsMeasured: number;
  readonly verifyBroken: string | null;
}

export interface GrowthOptions {
  readonly levels: readonly number[];
  readonly rounds: number;
  readonly samplesPerRound: number;
  readonly budgetMs: number;
  readonly log: (line: string) => void;
  readonly serverUrl: string;
  /** Each level as soon as it is measured (a later level may still fail). */
  readonly onLevel?: (level: GrowthLevel) => void;
}

/** One scratch store grown level by level (bulk-loaded), measured at each level, dropped at the end. */
export async function growthScenario(template: ExecutionTemplate, options: GrowthOptions): Promise<GrowthLevel[]> {
  const db = await createBenchDatabase(options.serverUrl, 'growth');
  const results: GrowthLevel[] = [];
  try {
    await migrate(db.url);
    const perExecution = eventsPerExecution(template);
    let seededExecutions = 0;
    for (const level of [...options.levels].sort((a, b) => a - b)) {
      const target = Math.ceil(level / perExecution);
      const started = Date.now();
      await seedExecutions(db.pool, template, target - seededExecutions, (done) => {
        if (done % 100_000 < 2000) options.log(`  seeded ${(seededExecutions + done) * perExecution} events`);
      });
      seededExecutions = target;
      const seedSeconds = (Date.now() - started) / 1000;
      await db.pool.query('ANALYZE onceport.events');
      const events = Number((await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM onceport.events')).rows[0]?.n);
      options.log(`  level ${events} events (seeded in ${seedSeconds.toFixed(0)} s): measuring`);
      const measured = await measureLevel(db.pool, template, events, seedSeconds, options);
      results.push(measured);
      options.onLevel?.(measured);
    }
  } finally {
    await db.drop();
  }
  return results;
}

async function measureLevel(
  pool: Pool,
  template: ExecutionTemplate,
  events: number,
  seedSeconds: number,
  options: GrowthOptions,
): Promise<GrowthLevel> {
  const rounds: { append: ReturnType<typeof summarize>; retry: ReturnType<typeof summarize>; rebuild: ReturnType<typeof summarize> }[] = [];
  for (let r = 0; r < options.rounds; r++) {
    const samples = await sampleExecutions(pool, options.samplesPerRound);
    const append: number[] = [];
    const retry: number[] = [];
    const rebuild: number[] = [];
    for (const sample of samples) {
      append.push(await appendLatency(pool, template));
      retry.push(await retryMatchingLatency(pool, sample));
      rebuild.push(await rebuildOneLatency(pool, sample));
    }
    rounds.push({ append: summarize(append), retry: summarize(retry), rebuild: summarize(rebuild) });
  }
  const projection = await projectionRebuildRate(pool, options.budgetMs);
  const verify = await auditVerifyRate(pool, options.budgetMs);
  return {
    events,
    seedSeconds,
    appendP50: acrossRounds(rounds.map((r) => r.append.p50)),
    retryMatchingP50: acrossRounds(rounds.map((r) => r.retry.p50)),
    rebuildOneP50: acrossRounds(rounds.map((r) => r.rebuild.p50)),
    appendP99: acrossRounds(rounds.map((r) => r.append.p99)),
    retryMatchingP99: acrossRounds(rounds.map((r) => r.retry.p99)),
    rebuildOneP99: acrossRounds(rounds.map((r) => r.rebuild.p99)),
    projectionEventsPerSecond: projection.eventsPerSecond,
    projectionEventsMeasured: projection.events,
    verifyEventsPerSecond: verify.eventsPerSecond,
    verifyEventsMeasured: verify.events,
    verifyBroken: verify.broken,
  };
}
