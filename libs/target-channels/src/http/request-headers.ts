import { failedBeforeSend, type FailedBeforeSend } from './http-outcome';

/** How the credential is presented: `Authorization: Bearer <credential>` unless configured. */
export interface CredentialPresentation {
  /** Header name; default `authorization`. */
  readonly header: string;
  /** e.g. `Bearer`, `Token`; null sends the bare credential (an `X-Api-Key` style header). */
  readonly scheme: string | null;
}

export const DEFAULT_PRESENTATION: CredentialPresentation = { header: 'authorization', scheme: 'Bearer' };

export interface HeaderInput {
  readonly staticHeaders: Readonly<Record<string, string>>;
  readonly traceHeaders: Readonly<Record<string, string>>;
  readonly presentation: CredentialPresentation;
  readonly credential: string | null;
  readonly idempotency: { readonly header: string; readonly value: string } | null;
  readonly jsonBody: boolean;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const SAFE_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Framing and routing belong to the client; a passed-through header must never set them. */
const CLIENT_OWNED = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'expect',
]);

/**
 * Assembles the request headers. Later layers win: static contract headers, then trace context,
 * then what the gateway owns (content type, credential, idempotency key), so neither a contract
 * nor a caller can spoof the execution id or the credential header.
 */
export function requestHeaders(input: HeaderInput): { readonly headers: Record<string, string> } | FailedBeforeSend {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.staticHeaders)) headers[name.toLowerCase()] = value;
  const owned = new Set([...CLIENT_OWNED, 'content-type', input.presentation.header.toLowerCase()]);
  if (input.idempotency) owned.add(input.idempotency.header.toLowerCase());
  for (const [name, value] of Object.entries(input.traceHeaders)) {
    // Trace context is best effort: a malformed or clashing entry is dropped, never sent and
    // never allowed to fail a dispatch.
    const lower = name.toLowerCase();
    if (TOKEN.test(name) && SAFE_VALUE.test(value) && !owned.has(lower)) headers[lower] = value;
  }
  if (input.jsonBody) headers['content-type'] = 'application/json';
  if (input.credential !== null) {
    if (input.credential === '' || !SAFE_VALUE.test(input.credential) || /^\s|\s$/.test(input.credential)) {
      // Never describe the value: not its length, not the offending character.
      return failedBeforeSend('bad_credential', 'the resolved credential cannot be sent as a header value', false);
    }
    const scheme = input.presentation.scheme;
    headers[input.presentation.header.toLowerCase()] = scheme ? `${scheme} ${input.credential}` : input.credential;
  }
  if (input.idempotency) {
    if (!SAFE_VALUE.test(input.idempotency.value))
      return failedBeforeSend('bad_request', 'the execution id cannot be sent as a header value', false);
    headers[input.idempotency.header.toLowerCase()] = input.idempotency.value;
  }
  return { headers };
}
