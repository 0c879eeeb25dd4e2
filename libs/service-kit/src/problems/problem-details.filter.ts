import type { ServerResponse } from 'node:http';
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Inject, Optional } from '@nestjs/common';
import { settledClientAbort } from '../http/client-aborted';
import { type ServiceLog, serviceLog } from '../logging/service-logger';
import { Problem, writeProblem } from './problem';

/** The log a feature module's filters and kit parts write to (`{ provide: SERVICE_LOG, useValue: log }`). */
export const SERVICE_LOG = Symbol('ONCEPORT_SERVICE_LOG');

/** Every error of a controller leaves as `application/problem+json` (RFC 9457); an unexpected one is logged, not shown. */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly log: ServiceLog;

  constructor(@Optional() @Inject(SERVICE_LOG) log?: ServiceLog) {
    this.log = log ?? serviceLog('onceport');
  }

  catch(error: unknown, host: ArgumentsHost): void {
    // This filter runs before the global ClientAbortedFilter, so it must tell a client abort apart itself.
    if (settledClientAbort(error, host, this.log)) return;
    const response = host.switchToHttp().getResponse<ServerResponse>();
    const problem = toProblem(error);
    if (problem.status >= 500) this.log('error', 'request failed', { error: error instanceof Error ? error.message : String(error) });
    if (response.headersSent) {
      response.end();
      return;
    }
    writeProblem(response, problem);
  }
}

export function toProblem(error: unknown): Problem {
  if (error instanceof Problem) return error;
  if (error instanceof HttpException) {
    const status = error.getStatus();
    return new Problem(status, status === 404 ? 'not_found' : 'http_error', error.message, error.message);
  }
  // The message of an unexpected error may hold internals: the log gets it, the client does not.
  return new Problem(500, 'internal_error', 'Internal error', 'The request failed on our side; it is safe to retry.');
}
