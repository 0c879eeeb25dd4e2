import type { Socket } from 'node:net';
import type { PumpMode } from './fault';

export interface PumpHooks {
  forwarded(bytes: number): void;
  dropped(bytes: number): void;
  /** The byte limit was reached and those bytes are in the kernel: time to reset. */
  limitReached(): void;
}

interface Queued {
  readonly chunk: Buffer;
  readonly due: number;
  readonly last: boolean;
}

/**
 * One direction of a proxied connection: reads `source`, writes `sink`, and applies the mode.
 * Chunks go through a queue with due times that never decrease, so latency keeps their order.
 * The end of the source (FIN, or an abort, passed on as an RST) travels like data: behind the
 * queued bytes, and not at all while the direction is dropped or held.
 */
export class Pump {
  private mode: PumpMode = { kind: 'pass', delayMs: 0 };
  private queue: Queued[] = [];
  private lastDue = 0;
  private timer: NodeJS.Timeout | null = null;
  private sourceDone: 'end' | 'abort' | null = null;
  private donePassedOn = false;
  private remaining: number | null = null;
  private limitHit = false;
  private sinkBlocked = false;

  constructor(
    private readonly source: Socket,
    private readonly sink: Socket,
    private readonly hooks: PumpHooks,
  ) {
    source.on('data', (chunk: Buffer) => this.onData(chunk));
    source.on('end', () => this.onSourceDone('end'));
    source.on('close', (hadError: boolean) => this.onSourceDone(hadError ? 'abort' : 'end'));
  }

  setMode(mode: PumpMode): void {
    const previous = this.mode;
    this.mode = mode;
    this.clearTimer();
    if (mode.kind === 'hold') {
      this.source.pause();
      return;
    }
    if (previous.kind === 'hold' && !this.sinkBlocked) this.source.resume();
    if (mode.kind === 'drop') {
      // Bytes "in flight" when a blackhole starts are lost, as they would be on a cut link.
      this.hooks.dropped(this.queue.reduce((sum, queued) => sum + queued.chunk.length, 0));
      this.queue = [];
    }
    this.flush();
  }

  /** Forward at most `bytes` more, then report `limitReached`; `null` lifts the limit. */
  setLimit(bytes: number | null): void {
    this.remaining = bytes;
  }

  stop(): void {
    this.clearTimer();
    this.queue = [];
  }

  private onData(chunk: Buffer): void {
    if (this.limitHit || this.mode.kind === 'drop') {
      this.hooks.dropped(chunk.length);
      return;
    }
    let last = false;
    if (this.remaining !== null) {
      if (chunk.length >= this.remaining) {
        this.hooks.dropped(chunk.length - this.remaining);
        chunk = chunk.subarray(0, this.remaining);
        this.limitHit = last = true;
      }
      this.remaining -= chunk.length;
    }
    const delay = this.mode.kind === 'pass' ? this.mode.delayMs : 0;
    this.lastDue = Math.max(Date.now() + delay, this.lastDue);
    this.queue.push({ chunk, due: this.lastDue, last });
    if (!this.timer) this.flush();
  }

  private onSourceDone(how: 'end' | 'abort'): void {
    if (this.sourceDone) return;
    this.sourceDone = how;
    if (!this.timer) this.flush();
  }

  private flush(): void {
    if (this.mode.kind === 'hold') return;
    const now = Date.now();
    let head = this.queue[0];
    while (head && head.due <= now) {
      this.queue.shift();
      this.write(head);
      head = this.queue[0];
    }
    if (head) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.flush();
      }, head.due - now);
      return;
    }
    this.passOnDone();
  }

  private write(queued: Queued): void {
    if (this.sink.destroyed) {
      this.hooks.dropped(queued.chunk.length);
      return;
    }
    const ok = this.sink.write(queued.chunk, queued.last ? () => this.hooks.limitReached() : undefined);
    this.hooks.forwarded(queued.chunk.length);
    if (!ok && !this.sinkBlocked) {
      this.sinkBlocked = true;
      this.source.pause();
      this.sink.once('drain', () => {
        this.sinkBlocked = false;
        if (this.mode.kind !== 'hold') this.source.resume();
      });
    }
  }

  private passOnDone(): void {
    if (!this.sourceDone || this.donePassedOn || this.mode.kind !== 'pass' || this.limitHit) return;
    this.donePassedOn = true;
    if (this.sink.destroyed) return;
    if (this.sourceDone === 'end') this.sink.end();
    else this.sink.resetAndDestroy();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
