/** Bounds how many handlers run at once; `drained()` resolves when none is running. */
export class Semaphore {
  private inUse = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly idle: (() => void)[] = [];

  constructor(private readonly capacity: number) {}

  acquire(): Promise<void> {
    if (this.inUse < this.capacity) {
      this.inUse++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Takes a slot only if one is free now. */
  tryAcquire(): boolean {
    if (this.inUse >= this.capacity) return false;
    this.inUse++;
    return true;
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) {
      next();
      return;
    }
    this.inUse--;
    if (this.inUse === 0) this.idle.splice(0).forEach((resolve) => resolve());
  }

  drained(): Promise<void> {
    return this.inUse === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }
}
