/**
 * One JSON spelling per value: object keys sorted by UTF-16 code units, no whitespace, numbers in
 * ECMAScript shortest round-trip form (as RFC 8785 / JCS), `-0` written as `0`.
 *
 * Refuses rather than guesses: `JSON.stringify` silently drops `undefined` and turns `NaN` into
 * `null`, which would make "absent", "undefined" and "NaN" fingerprint alike.
 *
 * The one canonical JSON of the repo: fingerprints and request digests, and the event store's
 * content hash (which passes `omitUndefinedMembers`, as jsonb stores an object without them).
 *
 * @example canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown, options: CanonicalJsonOptions = {}): string {
  return write(value, '$', new Set(), options.omitUndefinedMembers === true);
}

export interface CanonicalJsonOptions {
  /** Leave out object members whose value is `undefined` (as `JSON.stringify` does) instead of refusing them. */
  readonly omitUndefinedMembers?: boolean;
}

function write(value: unknown, path: string, ancestors: Set<object>, omitUndefined: boolean): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw refuse(path, String(value));
      return Object.is(value, -0) ? '0' : JSON.stringify(value);
    case 'object':
      break;
    default:
      throw refuse(path, typeof value === 'function' ? 'a function' : typeof value);
  }
  const object = value as object;
  if (ancestors.has(object)) throw refuse(path, 'a circular reference');
  ancestors.add(object);
  try {
    if (Array.isArray(object)) return writeArray(object, path, ancestors, omitUndefined);
    // Realm-independent "plain object": its prototype is null or some realm's Object.prototype
    // (arguments may come from structuredClone or another vm context).
    const proto = Object.getPrototypeOf(object) as object | null;
    if (proto !== null && Object.getPrototypeOf(proto) !== null)
      throw refuse(path, `an instance of ${object.constructor?.name ?? 'a class'}`);
    if (Object.getOwnPropertySymbols(object).length > 0) throw refuse(path, 'an object with symbol keys');
    const record = object as Record<string, unknown>;
    const keys = Object.keys(record)
      .sort()
      .filter((k) => !(omitUndefined && record[k] === undefined));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${write(record[k], `${path}.${k}`, ancestors, omitUndefined)}`).join(',')}}`;
  } finally {
    ancestors.delete(object);
  }
}

function writeArray(array: readonly unknown[], path: string, ancestors: Set<object>, omitUndefined: boolean): string {
  const parts: string[] = [];
  for (let i = 0; i < array.length; i++) {
    if (!(i in array)) throw refuse(`${path}[${i}]`, 'a hole in a sparse array');
    parts.push(write(array[i], `${path}[${i}]`, ancestors, omitUndefined));
  }
  return `[${parts.join(',')}]`;
}

function refuse(path: string, found: string): NonJsonValueError {
  return new NonJsonValueError(
    `${path}: got ${found}; expected a JSON value (string, finite number, boolean, null, array or plain object)`,
  );
}

/** A value with no single JSON spelling (undefined, NaN, a Date, a cycle…); the message names its path. */
export class NonJsonValueError extends Error {
  readonly code = 'NON_JSON_VALUE';
  constructor(message: string) {
    super(message);
    this.name = 'NonJsonValueError';
  }
}
