import { createHash } from 'node:crypto';
import type { RawResponse } from './exchange';
import type { ObservedResponse } from './http-outcome';
import type { Redactor } from './redactor';

/**
 * Response headers that are safe to keep in events and results. An allow-list: cookies, auth
 * challenges and anything unforeseen stay out of the audit store.
 */
const SAFE_HEADERS = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'location',
  'etag',
  'last-modified',
  'date',
  'retry-after',
  'cache-control',
  'link',
  'request-id',
  'x-request-id',
  'x-correlation-id',
  'idempotency-key',
  'idempotent-replayed',
  'traceparent',
  'tracestate',
]);
const SAFE_PREFIXES = ['ratelimit-', 'x-ratelimit-'];

export function observedResponse(raw: RawResponse, redactor: Redactor): ObservedResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw.headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || !(SAFE_HEADERS.has(lower) || SAFE_PREFIXES.some((p) => lower.startsWith(p)))) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    if (!redactor.contains(text)) headers[lower] = text;
  }
  // A target that echoes the credential must not smuggle it into the event store.
  const { bytes: body, redacted } = redactor.redactBuffer(raw.body);
  return {
    kind: 'observed',
    status: raw.status,
    headers,
    body,
    truncated: raw.truncated,
    contentType: headers['content-type'] ?? null,
    digest: `sha256:${createHash('sha256').update(body).digest('hex')}`,
    credentialRedacted: redacted,
  };
}
