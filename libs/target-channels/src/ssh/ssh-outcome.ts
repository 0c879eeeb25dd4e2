import type { NotSentCode } from './ssh-session';

/**
 * What one remote command came to (DESIGN.md §4, §9), in the same three kinds as the HTTP channel:
 * `observed` → OutcomeObserved (the exit status is the target status), `failed_before_send` →
 * DispatchFailedBeforeSend, `unknown` → OutcomeUnknown, settled later from the marker.
 */
export type SshOutcome = SshObserved | SshFailedBeforeSend | SshUnknown;

export interface SshObserved {
  readonly kind: 'observed';
  readonly exitStatus: number;
  /** The output document (see `outputDocument`), stored by reference by the caller. */
  readonly body: Buffer;
  readonly contentType: 'application/json';
}

export type SshFailedBeforeSendCode = NotSentCode | 'missing_credential' | 'bad_arguments' | 'marker_unavailable' | 'marker_dir_unsafe';

/** Nothing ran on the host: sending again cannot duplicate the command. */
export interface SshFailedBeforeSend {
  readonly kind: 'failed_before_send';
  readonly code: SshFailedBeforeSendCode;
  readonly reason: string;
  readonly retryable: boolean;
}

export type SshUnknownCode = 'timeout' | 'connection_lost' | 'already_started' | 'no_report';

/** The program was sent and no complete report came back: the command may be running or done. */
export interface SshUnknown {
  readonly kind: 'unknown';
  readonly code: SshUnknownCode;
  readonly reason: string;
}
