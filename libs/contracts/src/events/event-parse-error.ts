import { type z } from 'zod';

export type EventParseErrorCode =
  /** Not an envelope at all: missing type, version, data or valid metadata. */
  | 'invalid_envelope'
  /** A type no registered event has. */
  | 'unknown_event_type'
  /** A version this reader does not know: usually written by a newer producer. */
  | 'unknown_schema_version'
  /** The data does not satisfy the schema of the version it claims. */
  | 'invalid_event_data'
  /** An upcaster threw, or produced data the next version's schema refuses: a bug in our code, not the event. */
  | 'upcast_failed';

export interface EventParseIssue {
  /** Dotted path inside the envelope, e.g. `data.record.actor` or `metadata.eventId`. */
  readonly path: string;
  readonly message: string;
}

/**
 * Why a stored or received event could not be read. Names the event type, the schema version
 * and the zod path, so the log line alone says which producer wrote what.
 */
export class EventParseError extends Error {
  override readonly name = 'EventParseError';

  constructor(
    readonly code: EventParseErrorCode,
    readonly eventType: string | null,
    readonly schemaVersion: number | null,
    readonly issues: readonly EventParseIssue[],
    summary: string,
  ) {
    super(`${describeEvent(eventType, schemaVersion)}: ${summary}${formatIssues(issues)}`);
  }
}

export function issuesOf(error: z.ZodError, root: string): EventParseIssue[] {
  return error.issues.map((issue) => ({
    path: [root, ...issue.path.map(String)].filter((part) => part !== '').join('.'),
    message: issue.message,
  }));
}

function describeEvent(eventType: string | null, schemaVersion: number | null): string {
  return `${eventType ?? '<no type>'} v${schemaVersion ?? '?'}`;
}

function formatIssues(issues: readonly EventParseIssue[]): string {
  return issues.length === 0 ? '' : ` (${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')})`;
}
