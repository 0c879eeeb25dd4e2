/**
 * Every bound on what an agent sends, in one place (README "Calling it" lists them). Each value
 * reaches an event, an index, a header or a log line, so each has a ceiling the gateway enforces
 * before anything is parsed further, cloned, validated against a schema or recursed over.
 */

/** `intent_scope` (REST body) and `_meta["onceport/intent_scope"]` (MCP): 1–200 characters. */
export const MAX_INTENT_SCOPE_CHARS = 200;

/** A tool name: no contract declares a longer one, and the name is echoed in "unknown tool" errors. */
export const MAX_TOOL_NAME_CHARS = 128;

/**
 * Nesting inside `arguments` (an object holding an array is depth 2). No tool contract needs more;
 * deeper values are refused before any recursive code (schema validation, canonical JSON) sees them.
 */
export const MAX_ARGUMENT_DEPTH = 32;

/** Nesting of a whole request body: the arguments' bound plus the envelope around them (batch, message, params). */
export const MAX_BODY_DEPTH = MAX_ARGUMENT_DEPTH + 8;

/** Default gateway ceiling on the serialized `arguments` of one call (`ONCEPORT_MAX_ARGUMENT_BYTES`). */
export const DEFAULT_MAX_ARGUMENT_BYTES = 256 * 1024;

/** `Idempotency-Key` (IETF httpapi draft): 1–255 visible ASCII characters. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
export const MAX_IDEMPOTENCY_KEY_CHARS = 255;

/**
 * `Onceport-Agent-Process` and `Mcp-Session-Id`: server-issued ids (`rap_…`, UUIDs) are far shorter;
 * anything longer or outside visible ASCII cannot be one and is refused without a lookup.
 */
export const MAX_PROCESS_ID_CHARS = 128;
export const PROCESS_ID = /^[\x21-\x7e]{1,128}$/;

/** `X-Request-Id`: see `requestIdOrFresh` in the runtime lib (shared with the admin APIs). */
export { REQUEST_ID } from '@onceport/service-kit';

/** A JSON-RPC id: a string of 1–128 characters without control characters, or a safe integer. */
export const MAX_JSON_RPC_ID_CHARS = 128;

/** W3C trace context: a `traceparent` is 55 characters; a `tracestate` at most 512. Others are ignored. */
export const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
export const MAX_TRACESTATE_CHARS = 512;

/** At most this many violations are reported for one request (the rest would only repeat them). */
export const MAX_REPORTED_VIOLATIONS = 10;

/** The bounds a deployment may set (the rest are constants above). */
export interface InputBounds {
  /** Serialized `arguments` of one call, in UTF-8 bytes; below the body limit. */
  readonly maxArgumentBytes: number;
  /** Upper bound of `wait_ms` / `onceport/wait_ms`: a larger wait is shortened to it. */
  readonly maxWaitMs: number;
  /** `wait_ms` when none is sent. */
  readonly defaultWaitMs: number;
}
