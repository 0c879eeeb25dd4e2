import type { StoredEvent } from '../../event';

/** A stored event in the envelope shape the contracts' parsers read (the event id lives in the metadata there). */
export function storedEnvelope(stored: StoredEvent): unknown {
  return {
    type: stored.type,
    schemaVersion: stored.schemaVersion,
    data: stored.data,
    metadata: { ...stored.metadata, eventId: stored.eventId },
  };
}
