/**
 * Undo steps run last-in first-out, all of them even when some fail: register each process, proxy
 * or temp dir as soon as it exists, and `await cleanup.run()` in `afterEach`/`afterAll`.
 * @example
 * const cleanup = new CleanupStack();
 * afterEach(() => cleanup.run());
 * const proxy = cleanup.add(await startFaultProxy(...), (p) => p.stop());
 */
export class CleanupStack {
  private steps: (() => Promise<void> | void)[] = [];

  /** Registers `undo(value)` and hands `value` back. */
  add<T>(value: T, undo: (value: T) => Promise<void> | void): T {
    this.steps.push(() => undo(value));
    return value;
  }

  defer(undo: () => Promise<void> | void): void {
    this.steps.push(undo);
  }

  /** Runs every step; throws an AggregateError naming every failure after all have run. */
  async run(): Promise<void> {
    const failures: unknown[] = [];
    for (let step = this.steps.pop(); step; step = this.steps.pop()) {
      try {
        await step();
      } catch (error: unknown) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} cleanup step(s) failed`);
  }
}
