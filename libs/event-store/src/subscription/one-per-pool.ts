/** `make(pool)` once per pool, on first use: what every reader of a process's pool shares. */
export function onePerPool<P extends object, T>(make: (pool: P) => T): (pool: P) => T {
  const made = new WeakMap<P, T>();
  return (pool) => {
    let value = made.get(pool);
    if (value === undefined) {
      value = make(pool);
      made.set(pool, value);
    }
    return value;
  };
}
