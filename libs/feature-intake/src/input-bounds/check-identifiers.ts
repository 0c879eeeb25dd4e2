import { type BoundViolation, type Checked } from './bound-violation';
import { stringProblem } from './check-json-value';
import {
  IDEMPOTENCY_KEY,
  MAX_IDEMPOTENCY_KEY_CHARS,
  MAX_JSON_RPC_ID_CHARS,
  MAX_PROCESS_ID_CHARS,
  MAX_TRACESTATE_CHARS,
  PROCESS_ID,
  TRACEPARENT,
} from './input-bounds';

/** `Idempotency-Key`: absent (null), or 1–255 visible ASCII characters. */
export function checkIdempotencyKey(value: string | null): Checked<string | null> {
  if (value === null || IDEMPOTENCY_KEY.test(value)) return { ok: true, value };
  return {
    ok: false,
    violations: [
      {
        path: 'header Idempotency-Key',
        bound: `1-${MAX_IDEMPOTENCY_KEY_CHARS} visible ASCII characters`,
        message: `must be 1–${MAX_IDEMPOTENCY_KEY_CHARS} visible ASCII characters`,
      },
    ],
  };
}

/**
 * A server-issued process id sent back by the client (`Onceport-Agent-Process`, `Mcp-Session-Id`):
 * absent (null), or something that could be one. Whether it was really issued is the caller's lookup.
 */
export function checkProcessId(value: string | null, header: string): Checked<string | null> {
  if (value === null || PROCESS_ID.test(value)) return { ok: true, value };
  return {
    ok: false,
    violations: [
      {
        path: `header ${header}`,
        bound: `1-${MAX_PROCESS_ID_CHARS} visible ASCII characters`,
        message: `must be an id Onceport issued (1–${MAX_PROCESS_ID_CHARS} visible ASCII characters)`,
      },
    ],
  };
}

export { requestIdOrFresh } from '@onceport/service-kit';

/** W3C trace context headers, each dropped (null) unless well-formed: they travel into events and spans. */
export function boundedTraceContext(
  traceparent: string | null,
  tracestate: string | null,
): { traceparent: string | null; tracestate: string | null } {
  const parent = traceparent !== null && TRACEPARENT.test(traceparent) ? traceparent : null;
  const state =
    parent !== null && tracestate !== null && tracestate.length <= MAX_TRACESTATE_CHARS && /^[\x20-\x7e]*$/.test(tracestate)
      ? tracestate
      : null;
  return { traceparent: parent, tracestate: state };
}

/** A JSON-RPC request id: echoed in answers and stored with stream events, so bounded like any other value. */
export function checkJsonRpcId(id: unknown, path: string): BoundViolation | null {
  if (typeof id === 'number' && Number.isSafeInteger(id)) return null;
  if (
    typeof id === 'string' &&
    id.length >= 1 &&
    id.length <= MAX_JSON_RPC_ID_CHARS &&
    // eslint-disable-next-line no-control-regex
    !/[\u0000-\u001f\u007f]/.test(id) &&
    stringProblem(id) === null
  )
    return null;
  return {
    path,
    bound: `safe integer, or string of 1-${MAX_JSON_RPC_ID_CHARS} characters`,
    message: `a JSON-RPC id must be a safe integer or a string of 1–${MAX_JSON_RPC_ID_CHARS} characters without control characters`,
  };
}
