import type { JsonValue } from '@onceport/contracts';

const STEP = /\.([A-Za-z_][A-Za-z0-9_]*)|\[([0-9]+)\]/y;

/**
 * Reads the value at a contract JSON path (`$.state`, `$.items[0].state` — the only forms the
 * contract schema admits). `undefined` when the path does not exist or is malformed.
 */
export function readJsonPath(document: JsonValue, path: string): JsonValue | undefined {
  if (!path.startsWith('$')) return undefined;
  let current: JsonValue | undefined = document;
  STEP.lastIndex = 1;
  while (STEP.lastIndex < path.length) {
    const at = STEP.lastIndex;
    const step = STEP.exec(path);
    if (!step || step.index !== at) return undefined;
    const [, key, index] = step;
    if (key !== undefined) {
      current = isObject(current) && Object.hasOwn(current, key) ? current[key] : undefined;
    } else {
      current = Array.isArray(current) ? current[Number(index)] : undefined;
    }
    if (current === undefined) return undefined;
  }
  return current;
}

/** Structural equality of JSON values (object key order does not matter). */
export function jsonEquals(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEquals(item, b[i] as JsonValue));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEquals(a[k] as JsonValue, b[k] as JsonValue))
  );
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
