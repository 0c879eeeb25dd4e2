import type { RequestCorrelation } from '@onceport/contracts';
import type { DeliberateRepeat, NamedRun } from '../input-bounds';

/** One tool call as intake received it, from MCP or REST. */
export interface ToolCallRequest {
  readonly actor: string;
  /** The agent process: the MCP session, or a REST client's `Onceport-Agent-Process` header. */
  readonly agentProcess: string | null;
  readonly tool: string;
  readonly arguments: unknown;
  /** The operation scope the call's intent is matched within; defaults per actor. A run's calls take their run's instead. */
  readonly intentScope: string | null;
  /** The run the call belongs to (DESIGN.md §7); omitted outside runs. */
  readonly run?: NamedRun | null;
  /** A deliberate second effect of an intent that would match, with the agent's reason. */
  readonly repeat?: DeliberateRepeat | null;
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
