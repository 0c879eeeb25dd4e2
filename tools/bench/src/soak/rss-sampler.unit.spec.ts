import { leastSquaresSlope, rssMiB, rssTrend } from './rss-sampler';

describe('RSS trends', () => {
  it('fits the slope of a steady climb, in MiB per minute, after the warm-up', () => {
    const samples = Array.from({ length: 61 }, (_, i) => ({ t: i * 5, rssMiB: i < 12 ? 50 + i * 10 : 200 + (i * 5) / 60 }));
    const trend = rssTrend({ name: 'intake #0', pid: 1, samples }, 60, 120);
    expect(trend.slopeMiBPerMinute).toBeCloseTo(1, 5);
    expect(trend.lifeSeconds).toBe(300);
    expect(trend.peakMiB).toBeCloseTo(205, 5);
  });

  it('says nothing about a life too short to judge', () => {
    const samples = [0, 5, 10, 70, 75].map((t) => ({ t, rssMiB: 100 + t }));
    expect(rssTrend({ name: 'x', pid: 1, samples }, 60, 120).slopeMiBPerMinute).toBeNull();
  });

  it('reads a flat series as flat and a live process as having an RSS', () => {
    expect(leastSquaresSlope([0, 5, 10, 15].map((t) => ({ t, rssMiB: 80 })))).toBe(0);
    expect(rssMiB(process.pid)).toBeGreaterThan(1);
    expect(rssMiB(2 ** 22 + 12345)).toBeNull();
  });
});
