type Stream = 'stdout' | 'stderr';

interface Waiter {
  readonly matches: (line: string) => boolean;
  readonly resolve: (line: string) => void;
  readonly reject: (error: Error) => void;
}

const MAX_KEPT = 1 << 20;

/**
 * The output of one run of a process: kept whole (the last MiB of it) for reports, and split into
 * lines per stream so a waiter can match a line as soon as it is complete.
 */
export class OutputLog {
  private combined = '';
  private readonly byStream: Record<Stream, string> = { stdout: '', stderr: '' };
  private readonly partial: Record<Stream, string> = { stdout: '', stderr: '' };
  private readonly lines: string[] = [];
  private waiters: Waiter[] = [];
  private closedWith: Error | null = null;
  /** Called with every complete line (e.g. to echo it with a prefix). */
  onLine: ((stream: Stream, line: string) => void) | null = null;

  push(stream: Stream, chunk: Buffer): void {
    const text = chunk.toString('utf8');
    this.combined = keepTail(this.combined + text);
    this.byStream[stream] = keepTail(this.byStream[stream] + text);
    const pieces = (this.partial[stream] + text).split('\n');
    this.partial[stream] = pieces.pop() ?? '';
    for (const line of pieces) this.addLine(stream, line);
  }

  /** The run is over: a trailing line without a newline counts, and waiters still waiting fail. */
  close(reason: Error): void {
    for (const stream of ['stdout', 'stderr'] as const) {
      if (this.partial[stream]) this.addLine(stream, this.partial[stream]);
      this.partial[stream] = '';
    }
    this.closedWith = reason;
    for (const waiter of this.waiters.splice(0)) waiter.reject(reason);
  }

  text(stream?: Stream): string {
    return stream ? this.byStream[stream] : this.combined;
  }

  /** The last `count` lines, for error messages. */
  tail(count = 20): string {
    return this.lines.slice(-count).join('\n');
  }

  /** The first line (already seen or still to come) matching `pattern`. */
  async waitForLine(pattern: RegExp | string, timeoutMs: number, describe: string): Promise<string> {
    const matches = (line: string) => (typeof pattern === 'string' ? line.includes(pattern) : pattern.test(line));
    const seen = this.lines.find(matches);
    if (seen !== undefined) return seen;
    if (this.closedWith) throw this.closedWith;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((other) => other !== waiter);
        reject(new Error(`${describe}: no line matching ${String(pattern)} within ${timeoutMs} ms; last output:\n${this.tail()}`));
      }, timeoutMs);
      const waiter: Waiter = {
        matches,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.waiters.push(waiter);
    });
  }

  private addLine(stream: Stream, line: string): void {
    this.lines.push(line);
    if (this.lines.length > 10_000) this.lines.splice(0, this.lines.length - 10_000);
    this.onLine?.(stream, line);
    for (const waiter of this.waiters.filter((candidate) => candidate.matches(line))) {
      this.waiters = this.waiters.filter((other) => other !== waiter);
      waiter.resolve(line);
    }
  }
}

function keepTail(text: string): string {
  return text.length > MAX_KEPT ? text.slice(text.length - MAX_KEPT) : text;
}
