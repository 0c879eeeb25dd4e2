import { failedBeforeSend, unknownOutcome, type FailedBeforeSend, type UnknownOutcome } from './http-outcome';

/** Raised by the channel's own deadline (the contract's `timeoutMs`). */
export class DeadlineExceededError extends Error {
  readonly code = 'ONCEPORT_DEADLINE_EXCEEDED';
  constructor(timeoutMs: number) {
    super(`no complete answer within ${timeoutMs} ms`);
  }
}

/**
 * Names the failure. Whether it is "before send" or "unknown" is NOT decided here from the error
 * code — the caller says whether undici started writing this request; the code only picks the
 * words and whether a resend could help.
 */
export function classifyError(error: unknown, written: boolean, responseStarted: boolean): FailedBeforeSend | UnknownOutcome {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (written) {
    const stage = responseStarted ? 'response_started' : 'request_written';
    if (error instanceof DeadlineExceededError) return unknownOutcome('timeout', `the request was sent but ${message}`, stage);
    if (code === 'UND_ERR_HEADERS_TIMEOUT')
      return unknownOutcome('headers_timeout', 'the request was sent and no response headers came in time', stage);
    if (code === 'UND_ERR_BODY_TIMEOUT') return unknownOutcome('body_timeout', 'the response body stalled past the timeout', stage);
    if (
      code === 'UND_ERR_SOCKET' ||
      code === 'ECONNRESET' ||
      code === 'EPIPE' ||
      code === 'UND_ERR_CLOSED' ||
      code === 'UND_ERR_DESTROYED'
    ) {
      return unknownOutcome('connection_lost', `the connection closed after the request was sent (${code})`, stage);
    }
    return unknownOutcome('response_error', `the exchange failed after the request was sent (${code ?? 'no code'}: ${message})`, stage);
  }
  if (error instanceof DeadlineExceededError) return failedBeforeSend('timeout_before_send', `nothing was sent: ${message}`, true);
  switch (code) {
    case 'ECONNREFUSED':
      return failedBeforeSend('connect_refused', 'the target refused the connection', true);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return failedBeforeSend('dns_failure', `the target's host name did not resolve (${code})`, true);
    case 'UND_ERR_CONNECT_TIMEOUT':
      return failedBeforeSend('connect_timeout', 'connecting to the target timed out', true);
    case 'UND_ERR_CLOSED':
    case 'UND_ERR_DESTROYED':
      return failedBeforeSend('channel_closed', 'the channel is closed', true);
    case 'UND_ERR_INVALID_ARG':
      return failedBeforeSend('bad_request', `the request was refused by the HTTP client: ${message}`, false);
  }
  if (code && /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/.test(code)) {
    return failedBeforeSend('tls_failure', `the TLS handshake failed (${code})`, false);
  }
  return failedBeforeSend('connect_failed', `the connection failed before the request was sent (${code ?? 'no code'}: ${message})`, true);
}

function errorCode(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : null;
}
