/** Short, growing waits while events are held back (the holder is usually a transaction of a few ms). */
const FIRST_MS = 1;
const MAX_MS = 25;

/**
 * An idle reader's poll interval doubles after each empty look, up to this many times the one it
 * was given: the poll only covers a lost notification (writers notify after every commit), and
 * polling a quiet store at full rate cost each service about 1 % of a core doing nothing.
 */
const IDLE_STRETCH = 8;

export class HeldBackBackoff {
  private nextMs = FIRST_MS;
  private idleStretch = 1;

  /** How long to wait before looking again: a short step while events are held back (`TailRead.more` of an empty look), else the (stretching) idle interval. */
  waitMs(heldBack: boolean, idleMs: number): number {
    if (!heldBack) {
      this.nextMs = FIRST_MS;
      const wait = idleMs * this.idleStretch;
      this.idleStretch = Math.min(this.idleStretch * 2, IDLE_STRETCH);
      return wait;
    }
    const wait = Math.min(this.nextMs, idleMs);
    this.nextMs = Math.min(this.nextMs * 2, MAX_MS);
    return wait;
  }

  /** Events were read: back to short waits and the given idle interval. */
  reset(): void {
    this.nextMs = FIRST_MS;
    this.idleStretch = 1;
  }
}
