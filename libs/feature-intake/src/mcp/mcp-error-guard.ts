import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { safeText } from '../input-bounds';
import { type ErrorLog, internalErrorMessage, reportInternalError } from '../internal-errors/internal-error';

type RequestHandler = (request: unknown, extra: unknown) => Promise<unknown>;

/** The SDK internals `guardRequestHandlers` wraps; `mcp-error-guard.unit.spec.ts` fails loudly when they move. */
export interface GuardableServerInternals {
  _requestHandlers: Map<string, RequestHandler>;
}

/**
 * Every request handler of the server, wrapped so what it throws reaches the client as a JSON-RPC
 * error it may see: an `McpError` as it is; params the SDK's schema refused (a `ZodError`) as
 * -32602 with the paths only; anything else — a PostgreSQL error, a bug — as a generic -32603 whose
 * correlation id is in the log line holding the real error.
 *
 * The SDK (1.32.2, pinned) parses params inside the handler it stores and answers any non-McpError
 * with its message as -32603; there is no public hook between the two, so this wraps the stored
 * handlers. Call it after the last `setRequestHandler`.
 */
export function guardRequestHandlers(server: Server, log: ErrorLog): void {
  const handlers = (server as unknown as GuardableServerInternals)._requestHandlers;
  if (!(handlers instanceof Map))
    throw new Error(
      '@modelcontextprotocol/sdk changed its request handler internals: guardRequestHandlers (mcp/mcp-error-guard.ts) needs updating',
    );
  for (const [method, handler] of handlers) {
    handlers.set(method, async (request, extra) => {
      try {
        return await handler(request, extra);
      } catch (error) {
        throw toClientError(error, method, log);
      }
    });
  }
}

function toClientError(error: unknown, method: string, log: ErrorLog): McpError {
  if (error instanceof McpError && error.code !== ErrorCode.InternalError) return error;
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
    return new McpError(
      ErrorCode.InvalidParams,
      `Invalid params for ${method}: ${violations.map((v) => `${v.path}: ${v.message}`).join('; ')}`,
      { violations },
    );
  }
  const correlationId = reportInternalError(log, error, `mcp ${method}`);
  return new McpError(ErrorCode.InternalError, internalErrorMessage(correlationId), { correlation_id: correlationId });
}

function zodIssues(error: unknown): { path: readonly PropertyKey[]; message: string }[] | null {
  // zod's classic `ZodError`, or the core `$ZodError` the SDK's compat parser throws.
  if (!(error instanceof Error) || !/^\$?ZodError$/.test(error.name)) return null;
  const issues = (error as Error & { issues?: unknown }).issues;
  return Array.isArray(issues) ? (issues as { path: readonly PropertyKey[]; message: string }[]) : null;
}
