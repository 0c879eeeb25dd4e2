import { DEFAULT_POOL_MAX, POOL_MAX_RANGE } from '@onceport/event-store';
import { parseArgs } from 'node:util';

export interface BenchOptions {
  readonly mode: 'quick' | 'full';
  readonly scenarios: ReadonlySet<'idle' | 'overhead' | 'embedded' | 'throughput' | 'storm' | 'growth'>;
  readonly idleSeconds: number;
  /** Each service runs under V8's sampling profiler (it costs a few % of a core: idle figures are taken without it). */
  readonly profiles: boolean;
  readonly overheadRounds: number;
  readonly overheadCalls: number;
  readonly agents: readonly number[];
  readonly throughputRounds: number;
  readonly throughputSeconds: number;
  readonly commitSeconds: number;
  readonly stormCallers: number;
  readonly stormRounds: number;
  readonly growthLevels: readonly number[];
  readonly growthRounds: number;
  readonly growthSamples: number;
  readonly growthBudgetMs: number;
  /** Connections of each service's pg pool (`ONCEPORT_PG_POOL_MAX`; a deployment's default unless `--pool`). */
  readonly poolMax: number;
  readonly outName: string;
  readonly note: string;
}

const SCENARIOS = ['idle', 'overhead', 'embedded', 'throughput', 'storm', 'growth'] as const;

export const USAGE = `usage: npm run bench -- [--quick] [--only idle,overhead,embedded,throughput,storm,growth] [--levels 10000,1000000,10000000]
                       [--agents 1,16,64,256] [--rounds N] [--pool N] [--out NAME] [--note "what else ran"] [--without-profiles]
  --quick   small rounds and a 10k/100k store, for development (writes reports/quick.md unless --out)`;

/** Reads the command line; a bad value stops the run with a message naming it. */
export function readBenchOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      levels: { type: 'string' },
      agents: { type: 'string' },
      rounds: { type: 'string' },
      pool: { type: 'string' },
      out: { type: 'string' },
      note: { type: 'string' },
      'without-profiles': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) throw new UsageError('');
  const quick = values.quick === true;
  const rounds = values.rounds === undefined ? null : (wholeNumbers('--rounds', values.rounds)[0] ?? null);
  const only = values.only === undefined ? [...SCENARIOS] : values.only.split(',').map((s) => s.trim());
  for (const name of only)
    if (!(SCENARIOS as readonly string[]).includes(name))
      throw new UsageError(`--only: unknown scenario ${JSON.stringify(name)} (expected ${SCENARIOS.join(', ')})`);
  return {
    mode: quick ? 'quick' : 'full',
    scenarios: new Set(only as (typeof SCENARIOS)[number][]),
    idleSeconds: quick ? 10 : 30,
    profiles: values['without-profiles'] !== true,
    overheadRounds: rounds ?? (quick ? 3 : 7),
    overheadCalls: quick ? 15 : 40,
    agents: values.agents ? wholeNumbers('--agents', values.agents) : quick ? [1, 16, 64] : [1, 16, 64, 256],
    throughputRounds: rounds ?? (quick ? 1 : 3),
    throughputSeconds: quick ? 5 : 15,
    commitSeconds: quick ? 2 : 5,
    stormCallers: quick ? 200 : 1000,
    stormRounds: rounds ?? (quick ? 1 : 3),
    growthLevels: values.levels ? wholeNumbers('--levels', values.levels) : quick ? [10_000, 100_000] : [10_000, 1_000_000, 10_000_000],
    growthRounds: rounds ?? (quick ? 2 : 3),
    growthSamples: quick ? 20 : 100,
    growthBudgetMs: quick ? 5_000 : 30_000,
    poolMax: values.pool === undefined ? DEFAULT_POOL_MAX : poolSize(values.pool),
    outName: values.out ?? (quick ? 'quick' : 'latest'),
    note: values.note ?? '',
  };
}

export class UsageError extends Error {}

/** The services refuse a pool outside ONCEPORT_PG_POOL_MAX's range: say so before starting them. */
function poolSize(text: string): number {
  const size = wholeNumbers('--pool', text)[0] ?? 0;
  const { min, max } = POOL_MAX_RANGE;
  if (size < min || size > max) throw new UsageError(`--pool: ${size} is outside ${min} … ${max} (ONCEPORT_PG_POOL_MAX)`);
  return size;
}

function wholeNumbers(flag: string, text: string): number[] {
  const numbers = text.split(',').map((part) => Number(part.trim().replace(/_/g, '')));
  if (numbers.length === 0 || numbers.some((n) => !Number.isInteger(n) || n < 1))
    throw new UsageError(`${flag}: expected whole numbers ≥ 1 separated by commas, got ${JSON.stringify(text)}`);
  return numbers;
}
