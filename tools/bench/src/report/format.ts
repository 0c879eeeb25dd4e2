import type { AcrossRounds } from '../stats/summary';

export function num(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** "12.3 (10.1–15.0)": the median over rounds and its spread. */
export function spread(figure: AcrossRounds, digits = 1, unit = ''): string {
  if (!Number.isFinite(figure.median)) return 'n/a';
  const range = figure.rounds.length > 1 ? ` (${num(figure.min, digits)}–${num(figure.max, digits)})` : '';
  return `${num(figure.median, digits)}${unit}${range}`;
}

export function ratio(figure: AcrossRounds): string {
  return spread(figure, 2, '×');
}

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

export function count(n: number): string {
  return n >= 1_000_000 ? `${num(n / 1_000_000, n % 1_000_000 === 0 ? 0 : 1)}M` : n >= 1000 ? `${num(n / 1000, 0)}k` : String(n);
}
