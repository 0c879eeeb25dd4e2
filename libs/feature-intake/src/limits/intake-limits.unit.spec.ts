import type { CommandHandler, Queryable } from '@onceport/event-store';
import { IntakeLimits } from './intake-limits';

describe('IntakeLimits: which in-flight picks may share a statement', () => {
  let now = 0;
  const limits = () =>
    new IntakeLimits(
      { limitsOf: () => ({ ratePerSecond: 20, burst: 200, maxInFlight: 100 }) },
      {} as Queryable, // a pick's guard is built, never run, here
      {} as Pick<CommandHandler, 'load'>,
      () => now,
    );
  const merges = (of: IntakeLimits, actor: string) => of.placeGuard(actor, 'exe-1', new Date(now)).mergeable !== undefined;

  beforeEach(() => {
    now = 1_000_000;
  });

  it('a roomy actor’s picks merge; once one met a taken place, its picks go alone for ten seconds, then merge again', () => {
    const under = limits();
    expect(merges(under, 'agent:a')).toBe(true);
    under.pickRefused('agent:a');
    expect(merges(under, 'agent:a')).toBe(false);
    expect(merges(under, 'agent:b')).toBe(true);
    now += 9_999;
    expect(merges(under, 'agent:a')).toBe(false);
    now += 1;
    expect(merges(under, 'agent:a')).toBe(true);
  });

  it('another refusal while crowded starts the ten seconds again', () => {
    const under = limits();
    under.pickRefused('agent:a');
    now += 8_000;
    under.pickRefused('agent:a');
    now += 8_000;
    expect(merges(under, 'agent:a')).toBe(false);
  });

  it('remembers at most 10,000 crowded actors, forgetting the oldest mark first', () => {
    const under = limits();
    for (let i = 0; i <= 10_000; i++) under.pickRefused(`agent:${i}`);
    expect(merges(under, 'agent:0')).toBe(true);
    expect(merges(under, 'agent:1')).toBe(false);
    expect(merges(under, 'agent:10000')).toBe(false);
  });
});
