import { DatabaseError } from 'pg';

/** The stream was not at the version the writer expected: reload, decide again, retry. */
export class WrongExpectedVersionError extends Error {
  readonly code = 'wrong_expected_version';
  constructor(
    readonly streamId: string,
    readonly expectedVersion: number | string,
    detail: string,
  ) {
    super(`stream ${streamId} is not at expected version ${String(expectedVersion)}: ${detail}`);
    this.name = 'WrongExpectedVersionError';
  }
}

/** An event with this id is already stored (a writer retried an append that had committed). */
export class DuplicateEventError extends Error {
  readonly code = 'duplicate_event';
  constructor(
    readonly streamId: string,
    detail: string,
  ) {
    super(`an event appended to ${streamId} is already stored: ${detail}`);
    this.name = 'DuplicateEventError';
  }
}

/** The guard of an `appendTogether` returned no row, so nothing was appended (the writer takes its slower way). */
export class AppendGuardRefusedError extends Error {
  readonly code = 'append_guard_refused';
  constructor() {
    super('the appends were not written: their guard returned no row');
    this.name = 'AppendGuardRefusedError';
  }
}

/**
 * An error a value can cause (a data exception, say a text with a NUL byte): for batched reads, the
 * only kind worth sending the batch's items again in halves. A lost connection fails them all at once.
 */
export function refusedForItsValues(error: unknown): boolean {
  return error instanceof DatabaseError && (error.code ?? '').startsWith('22');
}
