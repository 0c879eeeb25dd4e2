import { describeFault, faultCycle, nemesisSchedule } from './nemesis';

describe('the soak nemesis', () => {
  it('kills every replica of every service once per cycle and restarts NATS and PostgreSQL once per replica round', () => {
    const cycle = faultCycle(2).map(describeFault);
    expect(cycle).toHaveLength(12);
    for (const service of ['intake', 'authorization', 'dispatcher', 'reconciler'])
      for (const replica of [0, 1]) expect(cycle.filter((f) => f === `SIGKILL ${service} #${replica}`)).toHaveLength(1);
    expect(cycle.filter((f) => f === 'SIGKILL nats-server')).toHaveLength(2);
    expect(cycle.filter((f) => f === 'PostgreSQL immediate stop')).toHaveLength(2);
    // the same part never twice in a row, even across the cycle's wrap
    const parts = [...cycle, ...cycle].map((f) => f.replace(/ #\d$/, ''));
    for (let i = 1; i < parts.length; i++) expect(parts[i]).not.toBe(parts[i - 1]);
  });

  it('leaves a quiet period at both ends of the run', () => {
    const schedule = nemesisSchedule(600, 45, 2);
    expect(schedule[0]?.atSeconds).toBe(45);
    expect(schedule.at(-1)?.atSeconds).toBeLessThanOrEqual(555);
    expect(schedule).toHaveLength(12);
    expect(schedule.map((s) => describeFault(s.fault))).toEqual(faultCycle(2).map(describeFault));
  });

  it('has no fault at all when the run is shorter than two periods', () => {
    expect(nemesisSchedule(60, 45, 2)).toEqual([]);
  });
});
