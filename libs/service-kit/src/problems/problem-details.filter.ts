import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Inject, Optional } from '@nestjs/common';
import { settledClientAbort } from '../http/client-aborted';
import { type ServiceLog, serviceLog } from '../logging/service-logger';
import { internalErrorMessage, reportInternalError } from './internal-error';
import { Problem, writeProblem } from './problem';

/** The log a feature module's filters and kit parts write to (`{ provide: SERVICE_LOG, useValue: log }`). */
export const SERVICE_LOG = Symbol('ONCEPORT_SERVICE_LOG');

/**
 * Every error of a controller leaves as `application/problem+json` (RFC 9457). An unexpected one is
 * logged with its stack under a correlation id, and the client gets a generic 500 quoting only that id.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly log: ServiceLog;

  constructor(@Optional() @Inject(SERVICE_LOG) log?: ServiceLog) {
    this.log = log ?? serviceLog('onceport');
  }

  catch(error: unknown, host: ArgumentsHost): void {
    // This filter runs before the global ClientAbortedFilter, so it must tell a client abort apart itself.
    if (settledClientAbort(error, host, this.log)) return;
    const http = host.switchToHttp();
    const request = http.getRequest<IncomingMessage>();
    const response = http.getResponse<ServerResponse>();
    const problem =
      clientProblemOf(error) ??
      internalProblem(reportInternalError(this.log, error, `${String(request.method).slice(0, 10)} ${pathOf(request)}`));
    if (response.headersSent) {
      response.end();
      return;
    }
    writeProblem(response, problem);
  }
}

/** A Problem as thrown, a client's HttpException (4xx) as a problem; null for anything else, whose message may hold internals. */
export function clientProblemOf(error: unknown): Problem | null {
  if (error instanceof Problem) return error;
  if (error instanceof HttpException && error.getStatus() < 500) {
    const status = error.getStatus();
    return new Problem(status, status === 404 ? 'not_found' : 'http_error', error.message, error.message);
  }
  return null;
}

/** The generic 500 for a failure the log holds under `correlationId` (see `reportInternalError`). */
export function internalProblem(correlationId: string): Problem {
  return new Problem(500, 'internal_error', 'Internal error', internalErrorMessage(correlationId), {}, { correlation_id: correlationId });
}

function pathOf(request: IncomingMessage): string {
  return (String(request.url ?? '').split('?')[0] ?? '').slice(0, 100);
}
