import type { RequestCorrelation } from '@onceport/contracts';

/** One tool call as intake received it, from MCP or REST. */
export interface ToolCallRequest {
  readonly actor: string;
  /** The agent process: the MCP session, or a REST client's `Onceport-Agent-Process` header. */
  readonly agentProcess: string | null;
  readonly tool: string;
  readonly arguments: unknown;
  /** The run / campaign this call belongs to; defaults per actor. */
  readonly intentScope: string | null;
  readonly correlation: RequestCorrelation;
  readonly clientIdempotencyKey: string | null;
  readonly waitMs: number;
  readonly traceparent: string | null;
  readonly tracestate: string | null;
  /** When the HTTP request arrived: a call is judged by the state its intent was in then (ms). */
  readonly receivedAt: number;
}

export function defaultIntentScope(actor: string): string {
  return `default:${actor}`;
}
