import { latencyFloor } from './overhead';

describe("the latency figure's floor", () => {
  it('adds the MCP layer (proxy − direct) to the durable minimum, and says what the goal leaves beyond it', () => {
    // 12 ms of durable steps, a proxy 5 ms slower than calling directly: (5 + 12) / 12, and 0.5 × 12 − 5 = 1 ms left.
    const floor = latencyFloor({ direct: 1.5, proxy: 6.5, durableMinimum: 12 }, 1.5);
    expect(floor.overMinimum).toBeCloseTo(17 / 12, 10);
    expect(floor.slackMs).toBeCloseTo(1, 10);
  });

  it('leaves less than nothing when the MCP layer alone costs more than the goal allows over the minimum', () => {
    const floor = latencyFloor({ direct: 1, proxy: 9, durableMinimum: 10 }, 1.5);
    expect(floor.overMinimum).toBeCloseTo(1.8, 10);
    expect(floor.slackMs).toBeCloseTo(-3, 10);
  });
});
