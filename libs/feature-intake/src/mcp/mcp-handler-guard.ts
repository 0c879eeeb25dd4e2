import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { safeText } from '../input-bounds';
import { type ErrorLog, internalErrorMessage, reportInternalError } from '../internal-errors/internal-error';

/**
 * A request handler wrapped so what it throws reaches the client as a JSON-RPC error it may see: a
 * `ProtocolError` meant for the client as it is; a schema refusal (a `ZodError`) as -32602 with the
 * paths only; anything else — a PostgreSQL error, a bug — as a generic -32603 whose correlation id is
 * in the log line holding the real error. Every handler intake registers goes through it.
 */
export function guarded<A extends unknown[], R>(
  method: string,
  log: ErrorLog,
  handler: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await handler(...args);
    } catch (error) {
      throw toClientError(error, method, log);
    }
  };
}

export function toClientError(error: unknown, method: string, log: ErrorLog): ProtocolError {
  if (error instanceof ProtocolError && error.code !== ProtocolErrorCode.InternalError) return error;
  const issues = zodIssues(error);
  if (issues) {
    const violations = issues.slice(0, 10).map((issue) => ({
      path:
        issue.path
          .slice(0, 10)
          .map((p) => safeText(String(p).slice(0, 40)))
          .join('.') || '$',
      bound: 'schema',
      message: safeText(issue.message.slice(0, 200)),
    }));
    return new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Invalid params for ${method}: ${violations.map((v) => `${v.path}: ${v.message}`).join('; ')}`,
      { violations },
    );
  }
  const correlationId = reportInternalError(log, error, `mcp ${method}`);
  return new ProtocolError(ProtocolErrorCode.InternalError, internalErrorMessage(correlationId), { correlation_id: correlationId });
}

function zodIssues(error: unknown): { path: readonly PropertyKey[]; message: string }[] | null {
  // zod's classic `ZodError`, or the core `$ZodError` a standard-schema parser throws.
  if (!(error instanceof Error) || !/^\$?ZodError$/.test(error.name)) return null;
  const issues = (error as Error & { issues?: unknown }).issues;
  return Array.isArray(issues) ? (issues as { path: readonly PropertyKey[]; message: string }[]) : null;
}
