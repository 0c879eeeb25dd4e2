import { DEFAULT_POOL_MAX } from '@onceport/event-store';
import { UsageError, readBenchOptions } from './bench-options';

describe('bench options', () => {
  it("runs the services with a deployment's pool unless --pool says otherwise", () => {
    expect(readBenchOptions([]).poolMax).toBe(DEFAULT_POOL_MAX);
    expect(readBenchOptions(['--pool', '20']).poolMax).toBe(20);
  });

  it.each([
    [['--pool', '4'], /--pool: 4 is outside 8 … 1000/],
    [['--pool', 'many'], /--pool: expected whole numbers/],
    [['--only', 'speed'], /--only: unknown scenario "speed"/],
  ])('refuses %j with a message naming the flag', (argv, message) => {
    expect(() => readBenchOptions(argv)).toThrow(UsageError);
    expect(() => readBenchOptions(argv)).toThrow(message);
  });
});
