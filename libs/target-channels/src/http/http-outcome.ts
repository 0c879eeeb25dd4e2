/**
 * What one HTTP exchange with a target came to (DESIGN.md §4, §9). The three kinds map onto
 * `OutcomeObserved`, `DispatchFailedBeforeSend` and `OutcomeUnknown`; getting the boundary
 * between the last two wrong either loses an effect or duplicates one, so it is decided from
 * whether undici started writing this request, never guessed from an error code.
 */
export type HttpOutcome = ObservedResponse | FailedBeforeSend | UnknownOutcome;

/** The target answered (any status). The effect, if any, happened. */
export interface ObservedResponse {
  readonly kind: 'observed';
  readonly status: number;
  /** Lower-cased names; only headers that are safe to store (no cookies, no auth challenges). */
  readonly headers: Readonly<Record<string, string>>;
  /** At most `maxResponseBytes`; see `truncated`. */
  readonly body: Buffer;
  /** The target sent more than the contract's cap: the body was cut, the outcome still stands. */
  readonly truncated: boolean;
  readonly contentType: string | null;
  /** `sha256:<hex>` of `body` exactly as returned here. */
  readonly digest: `sha256:${string}`;
  /** The target echoed the credential; it was replaced in `body` (and `digest` is of the result). */
  readonly credentialRedacted: boolean;
}

export type FailedBeforeSendCode =
  | 'connect_refused'
  | 'dns_failure'
  | 'connect_timeout'
  | 'connect_failed'
  | 'tls_failure'
  | 'timeout_before_send'
  | 'channel_closed'
  | 'url_refused'
  | 'bad_arguments'
  | 'missing_credential'
  | 'bad_credential'
  | 'bad_request';

/** Not one byte of the request reached the socket: sending again cannot duplicate an effect. */
export interface FailedBeforeSend {
  readonly kind: 'failed_before_send';
  readonly code: FailedBeforeSendCode;
  readonly reason: string;
  /** False when the same call would fail the same way (a refused URL, bad arguments). */
  readonly retryable: boolean;
}

export type UnknownCode = 'connection_lost' | 'timeout' | 'headers_timeout' | 'body_timeout' | 'response_error';

/** The request (or part of it) was handed to the socket and no complete answer came back. */
export interface UnknownOutcome {
  readonly kind: 'unknown';
  readonly code: UnknownCode;
  readonly reason: string;
  /** `response_started`: status and headers arrived, the body did not finish. */
  readonly stage: 'request_written' | 'response_started';
}

export function failedBeforeSend(code: FailedBeforeSendCode, reason: string, retryable: boolean): FailedBeforeSend {
  return { kind: 'failed_before_send', code, reason, retryable };
}

export function unknownOutcome(code: UnknownCode, reason: string, stage: UnknownOutcome['stage']): UnknownOutcome {
  return { kind: 'unknown', code, reason, stage };
}
