import type { Dispatcher } from 'undici';
import { classifyError, DeadlineExceededError } from './classify-error';
import type { FailedBeforeSend, UnknownOutcome } from './http-outcome';
import type { RequestPlan } from './plan-request';

export interface RawResponse {
  readonly kind: 'response';
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
  readonly truncated: boolean;
}

export type Exchanged = RawResponse | FailedBeforeSend | UnknownOutcome;

export interface ExchangeLimits {
  /** Bounds everything: waiting for a connection, connecting, headers and body. */
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
}

/** Dispatches one request and settles exactly once. Never rejects. */
export function exchange(dispatcher: Dispatcher, plan: RequestPlan, limits: ExchangeLimits): Promise<Exchanged> {
  return new Promise((resolve) => {
    const handler = new ExchangeHandler(limits, resolve);
    try {
      dispatcher.dispatch(
        {
          origin: plan.origin,
          path: plan.path,
          method: plan.method,
          headers: plan.headers,
          body: plan.body,
          headersTimeout: limits.timeoutMs,
          bodyTimeout: limits.timeoutMs,
        },
        handler,
      );
    } catch (error) {
      // A synchronous throw happens before undici queued the request: nothing was written.
      handler.fail(error);
    }
  });
}

/**
 * Tracks the one fact that matters: did undici start writing this request? undici 7 calls
 * `onRequestStart` from its HTTP/1 and HTTP/2 writers immediately before the request line is
 * built and put on the socket, and only there; aborting inside it makes the writer return
 * without writing. So "no onRequestStart" is a proof that nothing left, and everything after
 * it is treated as possibly received by the target.
 */
class ExchangeHandler implements Dispatcher.DispatchHandler {
  private written = false;
  private settled = false;
  private controller: Dispatcher.DispatchController | null = null;
  private status = 0;
  private headers: Record<string, string | string[] | undefined> = {};
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly limits: ExchangeLimits,
    private readonly resolve: (outcome: Exchanged) => void,
  ) {
    this.timer = setTimeout(() => this.expire(), limits.timeoutMs);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // Already settled (our deadline passed while it waited for a connection) or a second start
    // (undici re-sending a pipelined request after a reset): refuse before a byte is written.
    if (this.settled || this.written) {
      controller.abort(new Error('request cancelled before it was written'));
      return;
    }
    this.written = true;
    this.controller = controller;
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return; // informational; the real answer follows
    this.status = statusCode;
    this.headers = headers;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    const room = this.limits.maxResponseBytes - this.size;
    if (chunk.length <= room) {
      this.chunks.push(chunk);
      this.size += chunk.length;
      return;
    }
    // Over the cap: keep what fits and stop reading. The target did answer, so this is an
    // observed outcome; the connection is dropped rather than drained.
    if (room > 0) this.chunks.push(chunk.subarray(0, room));
    this.size += Math.max(room, 0);
    this.finish(true);
    controller.abort(new Error('response body over the contract cap'));
  }

  onResponseEnd(): void {
    this.finish(false);
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.fail(error);
  }

  fail(error: unknown): void {
    this.settle(classifyError(error, this.written, this.status > 0));
  }

  private finish(truncated: boolean): void {
    if (this.status === 0) {
      this.settle(classifyError(new Error('the response ended without a status'), this.written, false));
      return;
    }
    this.settle({ kind: 'response', status: this.status, headers: this.headers, body: Buffer.concat(this.chunks, this.size), truncated });
  }

  private expire(): void {
    if (this.settled) return;
    const error = new DeadlineExceededError(this.limits.timeoutMs);
    this.fail(error);
    // Before the write nothing is aborted here: onRequestStart will refuse to write later.
    this.controller?.abort(error);
  }

  private settle(outcome: Exchanged): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.resolve(outcome);
  }
}
