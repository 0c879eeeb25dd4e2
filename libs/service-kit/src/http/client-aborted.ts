import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ArgumentsHost, Catch, type HttpServer } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { processLog } from '../logging/service-logger';

/** The client closed its connection before its request body arrived: nothing failed here. */
export class ClientAbortedError extends Error {
  readonly code = 'client_aborted';
  constructor() {
    super('the client closed the connection before sending the whole request');
    this.name = 'ClientAbortedError';
  }
}

/** Whether an error is the client going away mid-request: ours, or Node's own (`Error: aborted`, ECONNRESET, on the request stream). */
export function isClientAbort(error: unknown): boolean {
  if (error instanceof ClientAbortedError) return true;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'ECONNRESET' && message === 'aborted';
}

export type InfoLog = (level: 'info', message: string, fields: Record<string, unknown>) => void;

/**
 * A client abort is one info line (method and path, bounded), not an error with a stack trace:
 * Nest's default handler would log it as a server failure and try to answer a socket that is gone.
 * It catches everything so that a body read by any controller (not only `readJsonBody`) is
 * covered; every other error goes on to Nest's own handling unchanged.
 */
@Catch()
export class ClientAbortedFilter extends BaseExceptionFilter {
  constructor(
    adapter: HttpServer,
    private readonly log: InfoLog,
  ) {
    super(adapter);
  }

  override catch(error: unknown, host: ArgumentsHost): void {
    if (!settledClientAbort(error, host, this.log)) super.catch(error, host);
  }
}

/**
 * For every exception filter, global or a controller's own (which runs first and so must do it
 * too): when `error` is a client abort, logs the one info line, lets the socket go without an
 * answer, and returns true; otherwise does nothing and returns false.
 */
export function settledClientAbort(error: unknown, host: ArgumentsHost, log: InfoLog): boolean {
  if (host.getType() !== 'http' || !isClientAbort(error)) return false;
  const http = host.switchToHttp();
  const req = http.getRequest<IncomingMessage>();
  const res = http.getResponse<ServerResponse>();
  log('info', 'client aborted the request', {
    method: String(req.method).slice(0, 10),
    path: String(req.url ?? '')
      .split('?')[0]
      ?.slice(0, 200),
  });
  if (!res.destroyed) res.destroy();
  return true;
}

/** The process's logger, for a server hardened without a service's own log. */
export function defaultInfoLog(level: 'info', message: string, fields: Record<string, unknown>): void {
  processLog()[level](fields, message);
}
