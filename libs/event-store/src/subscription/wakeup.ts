/** A one-shot-at-a-time signal: `wait(ms)` resolves on the next `wake()` or after `ms`. */
export class Wakeup {
  private pending: (() => void) | null = null;
  private woken = false;

  wake(): void {
    this.woken = true;
    this.pending?.();
  }

  /** Forgets a wake that came while nobody waited (what it asked for was done meanwhile). */
  clear(): void {
    this.woken = false;
  }

  wait(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.pending = null;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.pending = done;
    });
  }
}
