const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
type Unit = keyof typeof UNIT_MS;

/** One positive whole number and one unit; compound forms (`1h30m`) are refused to keep YAML greppable. */
export const DURATION_PATTERN = /^([1-9][0-9]{0,8})(ms|s|m|h|d)$/;
export const DURATION_EXPECTED = 'a duration like 500ms, 30s, 15m, 2h or 7d';

/** `"15m"` → 900000; null when the text is not a duration. */
export function parseDuration(text: string): number | null {
  const match = DURATION_PATTERN.exec(text);
  if (!match) return null;
  return Number(match[1]) * UNIT_MS[match[2] as Unit];
}

/** 900000 → `"15m"`: the largest unit that divides exactly, so it parses back to the same value. */
export function formatDuration(ms: number): string {
  const units: Unit[] = ['d', 'h', 'm', 's'];
  for (const unit of units) {
    if (ms >= UNIT_MS[unit] && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}
