import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { sendProblem } from '@onceport/service-kit';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Stands in front of an HTTP server's request handlers so a shutdown can drain it: stop accepting,
 * let the calls in flight be answered, then close what is left. Calls are the non-GET requests; a
 * GET is a stream (SSE, or a resumed one) that never "finishes" and is cut at the end — the client
 * resumes it with `Last-Event-ID` on another replica.
 */
export class HttpDrain {
  private draining = false;
  private readonly inFlight = new Set<ServerResponse>();
  private readonly settledWaiters = new Set<() => void>();

  constructor(private readonly server: Server) {}

  /** Wraps the server's current request listeners (call once, before it serves). */
  install(): void {
    const handlers = this.server.listeners('request') as RequestListener[];
    this.server.removeAllListeners('request');
    this.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (this.draining) return refuse(res);
      if (req.method !== 'GET') this.track(res);
      for (const handler of handlers) handler.call(this.server, req, res);
    });
  }

  /**
   * No new connection is accepted and idle ones close; a request still arriving on a kept-alive
   * connection gets 503. Answers in flight close their connection once written.
   */
  stopAccepting(): void {
    if (this.draining) return;
    this.draining = true;
    this.server.close();
    for (const res of this.inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
  }

  /** Resolves true once every call in flight was answered (or its client went), false after `timeoutMs`. */
  settled(timeoutMs: number): Promise<boolean> {
    if (this.inFlight.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (settled: boolean): void => {
        clearTimeout(timer);
        this.settledWaiters.delete(onSettled);
        resolve(settled);
      };
      const onSettled = (): void => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.settledWaiters.add(onSettled);
    });
  }

  /** Ends every connection still open (streams, and calls that outlived the grace). */
  closeConnections(): void {
    this.server.closeAllConnections();
  }

  private track(res: ServerResponse): void {
    this.inFlight.add(res);
    res.once('close', () => {
      this.inFlight.delete(res);
      if (this.inFlight.size === 0) for (const settled of [...this.settledWaiters]) settled();
    });
  }
}

function refuse(res: ServerResponse): void {
  const detail =
    'send the request again (another replica will take it); a repeated call attaches to the execution it already started, nothing runs twice';
  sendProblem(res, 503, 'shutting_down', 'This intake replica is shutting down', detail, {}, { Connection: 'close', 'Retry-After': '1' });
}
