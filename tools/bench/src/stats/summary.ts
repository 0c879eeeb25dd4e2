/** Percentile of already sorted numbers (nearest rank; p in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export interface LatencySummary {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly min: number;
  readonly max: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** One figure measured in every round: the median is what the report states, min and max its spread. */
export interface AcrossRounds {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly rounds: readonly number[];
}

export function acrossRounds(values: readonly number[]): AcrossRounds {
  const finite = values.filter((value) => Number.isFinite(value));
  const sorted = [...finite].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median =
    sorted.length === 0
      ? Number.NaN
      : sorted.length % 2 === 1
        ? (sorted[Math.floor(mid)] as number)
        : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] ?? Number.NaN, max: sorted[sorted.length - 1] ?? Number.NaN, rounds: [...values] };
}

/** Median and spread of a per-round figure derived from each round's record. */
export function figure<R>(rounds: readonly R[], pick: (round: R) => number): AcrossRounds {
  return acrossRounds(rounds.map(pick));
}

/** Least-squares slope of y against log10(x): how much a figure grows per tenfold store size. */
export function growthPerDecade(points: readonly { x: number; y: number }[]): number {
  const usable = points.filter((p) => p.x > 0 && Number.isFinite(p.y));
  if (usable.length < 2) return Number.NaN;
  const xs = usable.map((p) => Math.log10(p.x));
  const meanX = xs.reduce((a, b) => a + b, 0) / xs.length;
  const meanY = usable.reduce((a, p) => a + p.y, 0) / usable.length;
  let num = 0;
  let den = 0;
  usable.forEach((p, i) => {
    const dx = (xs[i] as number) - meanX;
    num += dx * (p.y - meanY);
    den += dx * dx;
  });
  return den === 0 ? Number.NaN : num / den;
}
