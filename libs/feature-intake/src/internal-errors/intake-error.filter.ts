import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import { SERVICE_LOG, type ServiceLog, internalErrorMessage, reportInternalError, settledClientAbort } from '@onceport/service-kit';
import { jsonRpcError } from '../mcp/json-rpc-shape';
import { sendProblem } from '../rest/problem';

/**
 * What escapes an intake controller: instead of Nest's default handler (and its log of the raw
 * error), a generic 500 — JSON-RPC -32603 on /mcp, problem details on REST — with a correlation id
 * the log line carries too.
 */
@Catch()
export class IntakeErrorFilter implements ExceptionFilter {
  constructor(@Inject(SERVICE_LOG) private readonly log: ServiceLog) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    // A controller's filter runs before the global ClientAbortedFilter: a client gone mid-body is one info line here too.
    if (settledClientAbort(exception, host, this.log)) return;
    const http = host.switchToHttp();
    const req = http.getRequest<IncomingMessage>();
    const res = http.getResponse<ServerResponse>();
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      if (!res.headersSent) sendProblem(res, exception.getStatus(), 'http-error', exception.message, exception.message);
      return;
    }
    const correlationId = reportInternalError(
      (level, message, fields) => this.log(level, message, fields),
      exception,
      `${req.method} ${(req.url ?? '').split('?')[0]?.slice(0, 100)}`,
    );
    if (res.headersSent) {
      res.end();
      return;
    }
    if ((req.url ?? '').startsWith('/mcp')) {
      res
        .writeHead(500, { 'Content-Type': 'application/json' })
        .end(JSON.stringify(jsonRpcError(-32603, internalErrorMessage(correlationId), null, { correlation_id: correlationId })));
      return;
    }
    sendProblem(res, 500, 'internal-error', 'Internal error', internalErrorMessage(correlationId), { correlation_id: correlationId });
  }
}
