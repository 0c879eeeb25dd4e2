import { EXECUTION_SUBJECT_PREFIX, eventSubject } from '@onceport/contracts';

/** The event type and version a handler's pattern names. */
export interface SubscribedEvent {
  readonly type: string;
  readonly schemaVersion: number;
}

const SUBJECT = /^([a-z0-9]+(?:-[a-z0-9]+)*)\.v([1-9][0-9]*)$/;

/**
 * Reads `onceport.execution.execution-accepted.v1` back as `{ type: 'ExecutionAccepted', schemaVersion: 1 }`.
 * Throws for anything `eventSubject` would not have made, so a mistyped pattern fails the start.
 */
export function subscribedEventOf(subject: string): SubscribedEvent {
  const prefix = `${EXECUTION_SUBJECT_PREFIX}.`;
  const match = subject.startsWith(prefix) ? SUBJECT.exec(subject.slice(prefix.length)) : null;
  const [, kebab, version] = match ?? [];
  if (!kebab || !version)
    throw new Error(`event pattern ${JSON.stringify(subject)} is not an execution event subject (use eventSubject(type, version))`);
  const type = kebab
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
  const schemaVersion = Number(version);
  if (eventSubject(type, schemaVersion) !== subject)
    throw new Error(`event pattern ${JSON.stringify(subject)} does not name one event type`);
  return { type, schemaVersion };
}
