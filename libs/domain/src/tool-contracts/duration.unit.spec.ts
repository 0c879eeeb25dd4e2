import { formatDuration, parseDuration } from './duration';

describe('durations', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['7d', 604_800_000],
  ])('parses %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
    expect(parseDuration(formatDuration(ms))).toBe(ms);
  });

  it.each(['', '0s', '10', '1h30m', '-5m', '1.5h', '5 m', '5M', '1w'])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeNull();
  });

  it('formats with the largest exact unit', () => {
    expect(formatDuration(90_000)).toBe('90s');
    expect(formatDuration(86_400_000)).toBe('1d');
    expect(formatDuration(1_500)).toBe('1500ms');
  });
});
