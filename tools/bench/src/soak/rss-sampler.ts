import { readFileSync } from 'node:fs';

/** Resident set size of a process in MiB, or null once it is gone. */
export function rssMiB(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export interface RssSample {
  /** Seconds since the sampler started. */
  readonly t: number;
  readonly rssMiB: number;
}

/** The samples of one process life: a name (e.g. `dispatcher #1`) and the pid it had then. */
export interface RssSeries {
  readonly name: string;
  readonly pid: number;
  readonly samples: RssSample[];
}

/**
 * Reads the RSS of every named process every `everyMs`. A restarted replica has a new pid and so a
 * new series: a process killed by the nemesis must not make the next one's start look like a drop.
 */
export function startRssSampler(pids: () => Record<string, number | null>, everyMs: number): { stop(): RssSeries[] } {
  const series = new Map<string, RssSeries>();
  const started = Date.now();
  const sample = (): void => {
    const t = (Date.now() - started) / 1000;
    for (const [name, pid] of Object.entries(pids())) {
      if (pid === null) continue;
      const rss = rssMiB(pid);
      if (rss === null) continue;
      const key = `${name}:${pid}`;
      const found = series.get(key) ?? { name, pid, samples: [] };
      found.samples.push({ t, rssMiB: rss });
      series.set(key, found);
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return [...series.values()];
    },
  };
}

export interface RssTrend {
  readonly name: string;
  readonly pid: number;
  readonly lifeSeconds: number;
  readonly firstMiB: number;
  readonly lastMiB: number;
  readonly peakMiB: number;
  /** Least-squares slope after the warm-up, MiB per minute (null: too short a life to say). */
  readonly slopeMiBPerMinute: number | null;
}

/**
 * The trend of one process life. The first `warmUpSeconds` of it are left out of the slope: a new
 * process grows while it compiles hot code and fills its pools, which is not a leak.
 */
export function rssTrend(series: RssSeries, warmUpSeconds: number, minimumSeconds: number): RssTrend {
  const samples = series.samples;
  const first = samples[0];
  const last = samples.at(-1);
  const life = first && last ? last.t - first.t : 0;
  const settled = first ? samples.filter((s) => s.t - first.t >= warmUpSeconds) : [];
  const span = settled.length > 1 ? (settled.at(-1)?.t ?? 0) - (settled[0]?.t ?? 0) : 0;
  return {
    name: series.name,
    pid: series.pid,
    lifeSeconds: life,
    firstMiB: first?.rssMiB ?? 0,
    lastMiB: last?.rssMiB ?? 0,
    peakMiB: Math.max(0, ...samples.map((s) => s.rssMiB)),
    slopeMiBPerMinute: span >= minimumSeconds ? leastSquaresSlope(settled) * 60 : null,
  };
}

/** d(rss)/dt in MiB per second. */
export function leastSquaresSlope(samples: readonly RssSample[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const meanT = samples.reduce((sum, s) => sum + s.t, 0) / n;
  const meanR = samples.reduce((sum, s) => sum + s.rssMiB, 0) / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.t - meanT) * (s.rssMiB - meanR);
    den += (s.t - meanT) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
