/** What went wrong, as a stable code a test or the CLI can switch on. */
export type FaultKitErrorCode =
  | 'not_loopback'
  | 'bad_address'
  | 'bad_fault'
  | 'not_running'
  | 'already_running'
  | 'not_ready'
  | 'timeout'
  | 'exited'
  | 'binary_missing'
  | 'command_failed'
  | 'not_monitored';

/** An error with a code and a human message; the CLI prints the message and exits non-zero. */
export class FaultKitError extends Error {
  constructor(
    readonly code: FaultKitErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'FaultKitError';
  }
}
