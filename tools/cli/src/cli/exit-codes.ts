/** Exit codes a script can rely on; listed in `onceport --help` and the README. */
export const EXIT = {
  ok: 0,
  /** Verification failed, or the service refused the operation in its current state (409). */
  failed: 1,
  usage: 2,
  notFound: 3,
  auth: 4,
  /** Cannot reach the service or the database (or it failed with a 5xx). */
  unreachable: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODES_HELP = `Exit codes:
  0  ok
  1  verification failed, or the operation was refused in the current state (HTTP 409)
  2  usage error (unknown command or option, missing argument, invalid value)
  3  not found (unknown execution, approval or run)
  4  authentication error (missing or wrong admin key)
  5  cannot reach the service or the database`;

/** A failure the CLI reports as one line on stderr and an exit code. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
  }
}

export const usageError = (message: string): CliError => new CliError(EXIT.usage, message);

/** An error's message, duck-typed: errors from node internals may come from another realm, where instanceof Error fails. */
export function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message !== '' ? message : String(error);
}
