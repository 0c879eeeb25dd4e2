import { acrossRounds, growthPerDecade, percentile, summarize } from './summary';

describe('benchmark statistics', () => {
  it('takes percentiles by nearest rank', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile(sorted, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it('summarizes unsorted samples', () => {
    expect(summarize([5, 1, 3, 2, 4])).toEqual({ n: 5, p50: 3, p99: 5, min: 1, max: 5 });
  });

  it('states the median over rounds with its spread, ignoring rounds that measured nothing', () => {
    expect(acrossRounds([3, 1, 2, 10])).toEqual({ median: 2.5, min: 1, max: 10, rounds: [3, 1, 2, 10] });
    expect(acrossRounds([4, Number.NaN, 2]).median).toBe(3);
  });

  it('measures growth per tenfold size: flat is 0, one unit per decade is 1', () => {
    expect(
      growthPerDecade([
        { x: 1e4, y: 2 },
        { x: 1e6, y: 2 },
        { x: 1e7, y: 2 },
      ]),
    ).toBeCloseTo(0);
    expect(
      growthPerDecade([
        { x: 1e4, y: 1 },
        { x: 1e5, y: 2 },
        { x: 1e6, y: 3 },
      ]),
    ).toBeCloseTo(1);
    expect(growthPerDecade([{ x: 1e4, y: 1 }])).toBeNaN();
  });
});
