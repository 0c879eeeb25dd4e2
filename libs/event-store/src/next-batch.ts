interface Waiting<I, O> {
  readonly item: I;
  readonly resolve: (output: O) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit for one kind of write: while a run is in flight, the items that arrive wait and go
 * together in the next run, so a burst of N writes costs a handful of statements and commits, not N.
 * A lone item runs at once: no timer, no added latency. Items keep their order across runs.
 *
 * `run` gets the items and returns one output per item, in the same order. When a run of several
 * fails with an error `isolate` accepts (say, the database refused a value), it is run again in
 * halves, in order, and a half that fails so is halved again: one bad item fails only its own caller,
 * and costs about 2·log2(n) runs where running each alone would cost n. Any other error (a lost
 * connection, when the run may have committed) fails that run's items: running it again could
 * write it twice.
 */
export class NextBatch<I, O> {
  private waiting: Waiting<I, O>[] = [];
  private running = false;

  constructor(
    private readonly run: (items: readonly I[]) => Promise<readonly O[]>,
    private readonly maxItems = 256,
    private readonly isolate: (error: unknown) => boolean = () => true,
  ) {
    if (!(Number.isInteger(maxItems) && maxItems >= 1))
      throw new RangeError(`NextBatch: maxItems must be a whole number ≥ 1, got ${maxItems}`);
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  /** Items waiting for the next run (for tests and metrics). */
  get queued(): number {
    return this.waiting.length;
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length > 0) {
        await this.runPart(this.waiting.splice(0, this.maxItems));
      }
    } finally {
      this.running = false;
    }
  }

  private async runPart(part: readonly Waiting<I, O>[]): Promise<void> {
    try {
      this.settle(part, await this.run(part.map((waiting) => waiting.item)));
    } catch (error) {
      if (part.length === 1 || !this.isolate(error)) for (const waiting of part) waiting.reject(error);
      // The halves in order, one after the other: items of one run may belong together (events of one stream).
      else for (const half of halves(part)) await this.runPart(half);
    }
  }

  private settle(batch: readonly Waiting<I, O>[], outputs: readonly O[]): void {
    if (outputs.length !== batch.length) {
      const error = new Error(`NextBatch: a run of ${batch.length} items returned ${outputs.length} outputs`);
      for (const waiting of batch) waiting.reject(error);
      return;
    }
    batch.forEach((waiting, i) => waiting.resolve(outputs[i] as O));
  }
}

function halves<T>(items: readonly T[]): [readonly T[], readonly T[]] {
  const middle = Math.ceil(items.length / 2);
  return [items.slice(0, middle), items.slice(middle)];
}
