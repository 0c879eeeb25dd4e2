import { type EventEnvelope, type Event } from './event';
import { type EventDefinition } from './event-definition';
import { type EventMetadata } from './event-metadata';
import { EventParseError, issuesOf } from './event-parse-error';

/**
 * Wraps data in an envelope at the definition's current version, validating it on the way out so a
 * producer can't publish what consumers will refuse.
 *
 * @example createEvent(OutcomeUnknownEvent, { executionId, attempt: 1, reason, detectedAt }, metadata)
 */
export function createEvent<Type extends string, Data>(
  definition: EventDefinition<Type, Data>,
  data: Data,
  metadata: EventMetadata,
): EventEnvelope<Event<Type, Data>> {
  const parsed = definition.data.safeParse(data);
  if (!parsed.success) {
    throw new EventParseError(
      'invalid_event_data',
      definition.type,
      definition.schemaVersion,
      issuesOf(parsed.error, 'data'),
      'data does not match the schema',
    );
  }
  const envelope = { type: definition.type, schemaVersion: definition.schemaVersion, data: parsed.data, metadata };
  // EventEnvelope distributes over unions; for a single Type/Data pair it is exactly this shape.
  return envelope as EventEnvelope<Event<Type, Data>>;
}
