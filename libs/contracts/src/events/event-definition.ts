import { type z } from 'zod';
import { eventSubject, eventSubjectWildcard } from './subjects';

/** The current version of one event type: its name, schema version, data schema and subjects. */
export interface EventDefinition<Type extends string = string, Data = unknown> {
  readonly type: Type;
  readonly schemaVersion: number;
  readonly data: z.ZodType<Data>;
  /** `onceport.execution.<kebab-type>.v<schemaVersion>`: where producers publish. */
  readonly subject: string;
  /** `onceport.execution.<kebab-type>.*`: what consumers subscribe to (every version). */
  readonly subjectWildcard: string;
}

/**
 * Declares the current version of an event.
 *
 * @example export const ExecutionAcceptedEvent = defineEvent('ExecutionAccepted', 1, ExecutionAcceptedData);
 */
export function defineEvent<const Type extends string, Data>(
  type: Type,
  schemaVersion: number,
  data: z.ZodType<Data>,
): EventDefinition<Type, Data> {
  if (!Number.isInteger(schemaVersion) || schemaVersion < 1) {
    throw new RangeError(`${type}: schema version must be an integer >= 1, got ${schemaVersion}`);
  }
  return { type, schemaVersion, data, subject: eventSubject(type, schemaVersion), subjectWildcard: eventSubjectWildcard(type) };
}
