/** A new random order each time, so no way of calling always goes first (or last) in an iteration. */
export function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

let counter = 0;
/** A project name and version no earlier call used: every call is a distinct intent. */
export function freshIntent(prefix: string): { project: string; version: string } {
  counter += 1;
  return { project: `${prefix}-${process.pid % 1000}-${counter}`.slice(0, 40), version: `v${Date.now()}.${counter}` };
}
