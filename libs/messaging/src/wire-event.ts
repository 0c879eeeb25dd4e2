import type { JsonObject, StoredEvent } from '@onceport/event-store';

/**
 * An event as it travels between services: the envelope the contracts lib parses (`type`,
 * `schemaVersion`, `data`, `metadata` with `eventId`), plus where it sits in the store.
 */
export interface WireEvent {
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: JsonObject;
  readonly metadata: JsonObject & { readonly eventId: string };
  readonly stream: { readonly id: string; readonly version: number; readonly position: string };
}

/** What a wire event is made of: a stored event, or one its writer just committed. */
export type PublishableEvent = Pick<
  StoredEvent,
  'eventId' | 'type' | 'schemaVersion' | 'data' | 'metadata' | 'streamId' | 'streamVersion' | 'globalPosition'
>;

export function toWireEvent(event: PublishableEvent): WireEvent {
  return {
    type: event.type,
    schemaVersion: event.schemaVersion,
    data: event.data,
    metadata: { ...event.metadata, eventId: event.eventId },
    stream: { id: event.streamId, version: event.streamVersion, position: event.globalPosition.toString() },
  };
}

export class MalformedWireEventError extends Error {
  readonly code = 'malformed_wire_event';
  constructor(detail: string) {
    super(`malformed event message: ${detail}`);
    this.name = 'MalformedWireEventError';
  }
}

/** Checks the envelope's shape only; each consumer validates `data` against the contracts it knows. */
export function parseWireEvent(body: string): WireEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    throw new MalformedWireEventError('body is not JSON');
  }
  if (!isObject(raw)) throw new MalformedWireEventError('body is not an object');
  const { type, schemaVersion, data, metadata, stream } = raw;
  if (typeof type !== 'string' || !Number.isInteger(schemaVersion) || !isObject(data) || !isObject(metadata) || !isObject(stream)) {
    throw new MalformedWireEventError('expected type, schemaVersion, data, metadata and stream');
  }
  if (typeof metadata['eventId'] !== 'string') throw new MalformedWireEventError('metadata.eventId is missing');
  return raw as unknown as WireEvent;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
