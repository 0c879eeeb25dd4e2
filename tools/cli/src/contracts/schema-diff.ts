const MAX_LINES = 40;
const MAX_VALUE_CHARS = 120;

/**
 * How two JSON Schemas differ, one line per changed place, in words a person reads:
 * `+ properties.priority: {"type":"integer"}`, `- required[1]: "content"`,
 * `~ properties.path.type: "string" → "number"`. Key order never counts as a change.
 */
export function schemaDiff(before: unknown, after: unknown): string[] {
  const lines: string[] = [];
  walk(before, after, '', lines);
  return lines.length > MAX_LINES ? [...lines.slice(0, MAX_LINES), `… and ${lines.length - MAX_LINES} more`] : lines;
}

export function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function walk(before: unknown, after: unknown, path: string, lines: string[]): void {
  if (lines.length > MAX_LINES) return;
  if (isObject(before) && isObject(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const at = path ? `${path}.${key}` : key;
      if (!(key in after)) lines.push(`- ${at}: ${shown(before[key])}`);
      else if (!(key in before)) lines.push(`+ ${at}: ${shown(after[key])}`);
      else walk(before[key], after[key], at, lines);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    // A list of names (`required`, `enum`): what joined and what left, wherever they stand.
    if ([...before, ...after].every((item) => typeof item !== 'object' || item === null)) {
      const was = new Set(before.map(canonical));
      const now = new Set(after.map(canonical));
      after.filter((item) => !was.has(canonical(item))).forEach((item) => lines.push(`+ ${path}[]: ${shown(item)}`));
      before.filter((item) => !now.has(canonical(item))).forEach((item) => lines.push(`- ${path}[]: ${shown(item)}`));
      return;
    }
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      if (i >= after.length) lines.push(`- ${path}[${i}]: ${shown(before[i])}`);
      else if (i >= before.length) lines.push(`+ ${path}[${i}]: ${shown(after[i])}`);
      else walk(before[i], after[i], `${path}[${i}]`, lines);
    }
    return;
  }
  if (canonical(before) !== canonical(after)) lines.push(`~ ${path || '(the whole schema)'}: ${shown(before)} → ${shown(after)}`);
}

function shown(value: unknown): string {
  const text = canonical(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` are the same schema. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
