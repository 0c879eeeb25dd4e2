import { type BoundViolation, childPath } from './bound-violation';
import { MAX_REPORTED_VIOLATIONS } from './input-bounds';

/**
 * Walks a parsed JSON value with an explicit stack (never recursion: the point is to refuse a body
 * nested 20,000 deep before schema validation, cloning or canonical JSON overflow the call stack).
 * Refuses containers nested deeper than `maxDepth` (the root container is depth 1) and strings —
 * values and keys alike — holding NUL or an unpaired UTF-16 surrogate, which PostgreSQL's jsonb
 * cannot store and which would otherwise fail as a server error deep inside an append.
 */
export function checkJsonValue(root: unknown, rootPath: string, maxDepth: number, depthBound = `depth <= ${maxDepth}`): BoundViolation[] {
  const violations: BoundViolation[] = [];
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: root, path: rootPath, depth: 1 }];
  for (let next = pending.pop(); next !== undefined && violations.length < MAX_REPORTED_VIOLATIONS; next = pending.pop()) {
    const { value, path, depth } = next;
    if (typeof value === 'string') {
      const problem = stringProblem(value);
      if (problem) violations.push({ path, bound: 'string-content', message: problem });
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > maxDepth) {
      violations.push({ path, bound: depthBound, message: `nested deeper than ${maxDepth} levels` });
      continue;
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i -= 1) pending.push({ value: value[i], path: childPath(path, i), depth: depth + 1 });
      continue;
    }
    const entries = Object.entries(value as Record<string, unknown>);
    for (const [key, child] of entries.reverse()) {
      const keyPath = childPath(path, key);
      const keyProblem = stringProblem(key);
      if (keyProblem) violations.push({ path: keyPath, bound: 'string-content', message: `key ${keyProblem}` });
      pending.push({ value: child, path: keyPath, depth: depth + 1 });
    }
  }
  return violations.slice(0, MAX_REPORTED_VIOLATIONS);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string may not be stored, or null. */
export function stringProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'contains NUL (U+0000), which is not allowed';
  if (LONE_SURROGATE.test(text)) return 'contains an unpaired UTF-16 surrogate, which is not allowed';
  return null;
}
