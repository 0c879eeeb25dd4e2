import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';

/** The client closed its connection before its request body arrived: nothing failed here. */
export class ClientAbortedError extends Error {
  readonly code = 'client_aborted';
  constructor() {
    super('the client closed the connection before sending the whole request');
    this.name = 'ClientAbortedError';
  }
}

/** Whether a body read failed because the client went away (Node's "aborted" / ECONNRESET on the request). */
export function isClientAbort(req: IncomingMessage, error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return req.destroyed || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || (error as Error | null)?.message === 'aborted';
}

export type InfoLog = (level: 'info', message: string, fields: Record<string, unknown>) => void;

/**
 * A client abort is one info line (method and path, bounded), not an error with a stack trace:
 * Nest's default handler would log it as a server failure and try to answer a socket that is gone.
 */
@Catch(ClientAbortedError)
export class ClientAbortedFilter implements ExceptionFilter {
  constructor(private readonly log: InfoLog) {}

  catch(_error: ClientAbortedError, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<IncomingMessage>();
    const res = http.getResponse<ServerResponse>();
    this.log('info', 'client aborted the request', { method: String(req.method).slice(0, 10), path: String(req.url ?? '').split('?')[0]?.slice(0, 200) });
    if (!res.destroyed) res.destroy();
  }
}

export function defaultInfoLog(level: 'info', message: string, fields: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ level, message, ...fields, time: new Date().toISOString() })}\n`);
}
