/**
 * The pure part of the quarantine: when an event that keeps failing stops being retried, which
 * failures count as the event's fault, and how much of an error is kept.
 */

/** Failed attempts after which an event is quarantined (`ONCEPORT_QUARANTINE_AFTER_ATTEMPTS`). */
export const DEFAULT_QUARANTINE_AFTER_ATTEMPTS = 5;
export const MAX_QUARANTINE_AFTER_ATTEMPTS = 1000;
/** What the quarantine keeps of an error message (the column's bound). */
export const MAX_ERROR_TEXT = 2000;

export type FailureVerdict = 'retry' | 'skip';

/** The statuses in which the subscriber no longer applies the event in order. */
export type QuarantineStatus = 'failing' | 'quarantined' | 'retry_requested' | 'retrying' | 'resolved' | 'released';
export const QUARANTINE_STATUSES: readonly QuarantineStatus[] = [
  'failing',
  'quarantined',
  'retry_requested',
  'retrying',
  'resolved',
  'released',
];
/** Open entries: skipped, and waiting for an operator (or for the owner to take a retry). */
export const OPEN_STATUSES: readonly QuarantineStatus[] = ['quarantined', 'retry_requested', 'retrying'];

/** An event still `failing` is tried again; in any other status it is out of the ordered flow. */
export function verdictOf(status: QuarantineStatus): FailureVerdict {
  return status === 'failing' ? 'retry' : 'skip';
}

/** Where an entry goes after one more counted failure. */
export function statusAfterFailure(current: QuarantineStatus | null, attempts: number, afterAttempts: number): QuarantineStatus {
  if (current !== null && current !== 'failing') return current;
  return attempts >= afterAttempts ? 'quarantined' : 'failing';
}

export function assertAfterAttempts(value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_QUARANTINE_AFTER_ATTEMPTS) {
    throw new RangeError(`quarantine: afterAttempts must be a whole number from 1 to ${MAX_QUARANTINE_AFTER_ATTEMPTS}, got ${value}`);
  }
  return value;
}

// SQLSTATE classes and codes that say the database or the connection failed, not the event:
// 08 connection, 53 resources, 57P admin/crash shutdown, 40001/40P01 serialization/deadlock, 55P03 lock timeout.
const TRANSIENT_SQLSTATE = /^(08|53|57P|40001|40P01|55P03)/;
const TRANSIENT_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const TRANSIENT_NAMES = new Set(['WrongExpectedVersionError', 'CheckpointMovedError']);

/**
 * Whether a failure counts against the event. An outage or a lost race would fail every event
 * alike: counting those would quarantine innocent events while the database restarts.
 */
export function countsAgainstEvent(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return true;
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof name === 'string' && TRANSIENT_NAMES.has(name)) return false;
  // An event from a newer producer waits for this reader's upgrade (rolling deploys), it is not poison.
  if (name === 'EventParseError' && code === 'unknown_schema_version') return false;
  if (typeof code === 'string' && (TRANSIENT_SQLSTATE.test(code) || TRANSIENT_NODE_CODES.has(code))) return false;
  // pg reports a dropped connection without a code.
  if (
    typeof message === 'string' &&
    /^Connection terminated|connection (timeout|terminated)|Client has encountered a connection error/i.test(message)
  )
    return false;
  return true;
}

/** One line of at most MAX_ERROR_TEXT characters, control characters replaced. */
export function boundedErrorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const clean = text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .trim();
  return clean.length <= MAX_ERROR_TEXT ? clean : `${clean.slice(0, MAX_ERROR_TEXT - 1)}…`;
}

/** A bounded label-free text (event type, subscriber) for a column of 200 characters. */
export function bounded(text: string, max = 200): string {
  return text.length <= max ? text : text.slice(0, max);
}
