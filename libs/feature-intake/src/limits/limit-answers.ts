import type { ServerResponse } from 'node:http';
import { ProtocolError } from '@modelcontextprotocol/server';
import { sendProblem } from '../rest/problem';
import { type ActorLimitError, TooManyInFlightError } from './limit-errors';

/**
 * The JSON-RPC error code of a call refused by a limit. JSON-RPC leaves -32000…-32099 to the
 * server; the MCP SDK uses -32000 and -32001 and MCP itself -32002 and -32042, so we take -32029
 * ("429"), which nobody else uses: a client can tell "slow down" from "your request is wrong"
 * (-32602) and from "we failed" (-32603) by the code alone.
 */
export const LIMIT_EXCEEDED = -32029;

/** What a client needs to come back at the right time, in both transports' answers. */
function limitDetails(error: ActorLimitError): Record<string, unknown> {
  return {
    code: error.code,
    retry_after_seconds: error.retryAfterSeconds,
    retry_after_ms: error.retryAfterMs,
    limits: { rate_per_second: error.limits.ratePerSecond, burst: error.limits.burst, max_in_flight: error.limits.maxInFlight },
    ...(error instanceof TooManyInFlightError ? { in_flight: error.inFlight } : {}),
  };
}

/** MCP: a JSON-RPC error whose `data` says when to retry. */
export function limitMcpError(error: ActorLimitError): ProtocolError {
  return new ProtocolError(LIMIT_EXCEEDED, error.message, limitDetails(error));
}

/** REST: 429 problem details with `Retry-After` in seconds. */
export function sendLimitProblem(res: ServerResponse, error: ActorLimitError): void {
  res.setHeader('Retry-After', String(error.retryAfterSeconds));
  const title = error instanceof TooManyInFlightError ? 'Too many executions in flight' : 'Too many calls';
  sendProblem(res, 429, error.code.replaceAll('_', '-'), title, error.message, limitDetails(error));
}
