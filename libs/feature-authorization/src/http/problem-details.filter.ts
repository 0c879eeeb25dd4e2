import { type ServerResponse } from 'node:http';
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import { AUTHORIZATION_OPTIONS, type AuthorizationOptions } from '../authorization.options';
import { Problem } from './problem';

/** Every error of the admin API leaves as `application/problem+json` (RFC 9457). */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  constructor(@Inject(AUTHORIZATION_OPTIONS) private readonly options: AuthorizationOptions) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<ServerResponse>();
    const problem = toProblem(error);
    if (problem.status >= 500) this.options.log('error', 'admin request failed', { error: error instanceof Error ? error.message : String(error) });
    response.statusCode = problem.status;
    response.setHeader('content-type', 'application/problem+json');
    for (const [name, value] of Object.entries(problem.headers)) response.setHeader(name, value);
    response.end(JSON.stringify(problem));
  }
}

function toProblem(error: unknown): Problem {
  if (error instanceof Problem) return error;
  if (error instanceof HttpException) {
    const status = error.getStatus();
    return new Problem(status, status === 404 ? 'not_found' : 'http_error', error.message, error.message);
  }
  // The message of an unexpected error may hold internals: the log gets it, the client does not.
  return new Problem(500, 'internal_error', 'Internal error', 'The request failed on our side; it is safe to retry.');
}
