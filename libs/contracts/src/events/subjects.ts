/** Every execution event lives under this prefix; the JetStream stream captures all of it. */
export const EXECUTION_SUBJECT_PREFIX = 'onceport.execution';

/** The subject space of the JetStream stream that carries execution events. */
export const EXECUTION_STREAM_SUBJECTS = `${EXECUTION_SUBJECT_PREFIX}.>`;

/** `ExecutionAccepted` → `execution-accepted`. */
export function kebabEventName(type: string): string {
  return type.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

/**
 * The subject one version of an event is published on, e.g.
 * `eventSubject('ExecutionAccepted', 1)` → `onceport.execution.execution-accepted.v1`.
 * The version is in the name so a consumer can tell a schema change from the subject alone.
 */
export function eventSubject(type: string, schemaVersion: number): string {
  return `${EXECUTION_SUBJECT_PREFIX}.${kebabEventName(type)}.v${schemaVersion}`;
}

/**
 * The subject filter for every version of an event, e.g. `onceport.execution.execution-accepted.*`.
 * Consumers filter on this (not on one version) and upcast on read, so a producer can move to v2
 * before every consumer has been redeployed.
 */
export function eventSubjectWildcard(type: string): string {
  return `${EXECUTION_SUBJECT_PREFIX}.${kebabEventName(type)}.*`;
}
