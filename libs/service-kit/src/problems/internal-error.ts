import { randomUUID } from 'node:crypto';

/** Where a service writes a failure it cannot explain to the client (its structured log). */
export type ErrorLog = (level: 'error', message: string, fields: Record<string, unknown>) => void;

/**
 * Logs a server-side failure with a fresh correlation id and returns the id: the client gets only
 * the id (to quote to an operator), never the error's text — a PostgreSQL message, a zod dump or a
 * stack says things about the gateway's insides that are nobody's business outside it.
 *
 * @example const correlationId = reportInternalError(log, error, 'GET /v1/admin/approvals');
 */
export function reportInternalError(log: ErrorLog, error: unknown, where: string): string {
  const correlationId = `err_${randomUUID()}`;
  const fields: Record<string, unknown> = {
    correlation_id: correlationId,
    where,
    error: error instanceof Error ? error.message : String(error),
  };
  if (error instanceof Error && error.stack) fields['stack'] = error.stack;
  log('error', 'internal error answered generically', fields);
  return correlationId;
}

/** What a client is told instead. */
export function internalErrorMessage(correlationId: string): string {
  return `Internal error: the gateway could not complete this request; the operator's log has the details under correlation id ${correlationId}`;
}
