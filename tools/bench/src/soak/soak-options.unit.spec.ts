import { SoakUsageError, readSoakOptions } from './soak-options';

describe('soak options', () => {
  it('runs ten minutes at 70 % of the calibrated rate with a fault every 45 s by default', () => {
    expect(readSoakOptions([])).toMatchObject({
      minutes: 10,
      ratePerSecond: null,
      loadShare: 0.7,
      faultEverySeconds: 45,
      replicas: 2,
      outName: 'soak',
    });
  });

  it('takes a fixed rate and a shorter run', () => {
    expect(readSoakOptions(['--minutes', '2', '--rate', '25', '--out', 'soak-short'])).toMatchObject({
      minutes: 2,
      ratePerSecond: 25,
      outName: 'soak-short',
    });
  });

  it.each([
    [['--minutes', 'ten'], /--minutes: expected a number/],
    [['--rate', '0'], /--rate: expected a number from 0.1/],
    [['--share', '1.5'], /--share/],
    [['--out', '../etc/passwd'], /--out: expected lowercase/],
  ])('refuses %j with a message naming the flag', (argv, message) => {
    expect(() => readSoakOptions(argv)).toThrow(SoakUsageError);
    expect(() => readSoakOptions(argv)).toThrow(message);
  });

  it('refuses an unknown flag', () => {
    expect(() => readSoakOptions(['--minute', '3'])).toThrow(/Unknown option/);
  });
});
