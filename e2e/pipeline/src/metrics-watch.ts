import type { Pipeline } from './pipeline-harness';

type Service = 'intake' | 'authorization' | 'dispatcher' | 'reconciler';
const SERVICES: readonly Service[] = ['intake', 'authorization', 'dispatcher', 'reconciler'];

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** One service's `GET /metrics`, parsed from the Prometheus text format. */
export async function scrape(url: string): Promise<Sample[]> {
  const response = await fetch(`${url}/metrics`);
  if (response.status !== 200) throw new Error(`${url}/metrics answered ${response.status}`);
  const samples: Sample[] = [];
  for (const line of (await response.text()).split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key as string] = value as string;
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of a metric's samples whose labels include `labels`. */
export function total(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
    .reduce((sum, s) => sum + s.value, 0);
}

/**
 * Every service's metrics when a scenario starts, so the scenario can say how far each counter
 * moved because of it (the processes live for the whole file; counters only go up).
 */
export class MetricsWatch {
  private constructor(
    private readonly pipeline: Pipeline,
    private readonly before: ReadonlyMap<Service, Sample[]>,
  ) {}

  static async start(pipeline: Pipeline): Promise<MetricsWatch> {
    const scraped = await Promise.all(SERVICES.map(async (service) => [service, await scrape(pipeline[service].url)] as const));
    return new MetricsWatch(pipeline, new Map(scraped));
  }

  /** How much `name` (restricted to `labels`) grew on `service` since the start. */
  async moved(service: Service, name: string, labels: Record<string, string> = {}): Promise<number> {
    const now = await scrape(this.pipeline[service].url);
    return total(now, name, labels) - total(this.before.get(service) ?? [], name, labels);
  }

  /**
   * `moved`, once it reached `expected` (or the wait is over): a service counts right after its
   * append, which another process may already have acted on. Overshooting still shows.
   */
  async reaches(service: Service, name: string, labels: Record<string, string>, expected: number, timeoutMs = 15_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const moved = await this.moved(service, name, labels);
      if (moved >= expected || Date.now() > deadline) return moved;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The same, summed over every service (for what any replica may do, like relaying). */
  async movedAnywhere(name: string, labels: Record<string, string> = {}): Promise<number> {
    const moved = await Promise.all(SERVICES.map((service) => this.moved(service, name, labels)));
    return moved.reduce((sum, n) => sum + n, 0);
  }
}
