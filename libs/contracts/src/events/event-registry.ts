import { z } from 'zod';
import { type EventEnvelope, type Event } from './event';
import { type EventDefinition } from './event-definition';
import { EventMetadata } from './event-metadata';
import { EventParseError, issuesOf } from './event-parse-error';
import { type PastVersion } from './past-version';

/** One event type in a registry: its current definition and the chain of versions before it. */
export interface RegistryEntry<Def extends EventDefinition = EventDefinition> {
  readonly current: Def;
  /** Versions 1 … current-1, each lifting its data one version up. Empty while at v1. */
  readonly past?: readonly PastVersion[];
}

type EnvelopeOf<Def> = Def extends EventDefinition<infer Type, infer Data> ? EventEnvelope<Event<Type, Data>> : never;

export type SafeParseEventResult<E> = { success: true; event: E } | { success: false; error: EventParseError };

export interface EventRegistry<E> {
  /** Validates an envelope and returns it at the current schema version. Throws {@link EventParseError}. */
  parse(raw: unknown): E;
  /** Like {@link EventRegistry.parse}, with the error as a value. */
  safeParse(raw: unknown): SafeParseEventResult<E>;
  /** The current schema version of a type, or undefined for a type this registry does not know. */
  currentVersion(type: string): number | undefined;
  readonly types: readonly string[];
}

const Envelope = z.object({
  type: z.string().min(1),
  schemaVersion: z.int().min(1),
  data: z.unknown(),
  metadata: EventMetadata,
});

/**
 * Builds the read side of a set of events: envelope validation plus upcasting on read
 * (vN → vN+1 → … → current), so an old stream keeps folding after a schema change.
 *
 * @example const registry = createEventRegistry([{ current: ExecutionAcceptedEvent }]);
 */
export function createEventRegistry<const Entries extends readonly RegistryEntry[]>(
  entries: Entries,
): EventRegistry<EnvelopeOf<Entries[number]['current']>> {
  const byType = indexEntries(entries);
  const safeParse = (raw: unknown): SafeParseEventResult<EnvelopeOf<Entries[number]['current']>> => {
    try {
      // Sound: readEnvelope validated the data against the current schema of exactly this type.
      return { success: true, event: readEnvelope(byType, raw) as EnvelopeOf<Entries[number]['current']> };
    } catch (error) {
      if (error instanceof EventParseError) return { success: false, error };
      throw error;
    }
  };
  return {
    safeParse,
    parse: (raw) => {
      const result = safeParse(raw);
      if (!result.success) throw result.error;
      return result.event;
    },
    currentVersion: (type) => byType.get(type)?.current.schemaVersion,
    types: [...byType.keys()],
  };
}

function indexEntries(entries: readonly RegistryEntry[]): Map<string, RegistryEntry> {
  const byType = new Map<string, RegistryEntry>();
  for (const entry of entries) {
    const { type, schemaVersion } = entry.current;
    if (byType.has(type)) throw new Error(`event registry: ${type} is registered twice`);
    const versions = (entry.past ?? []).map((step) => step.schemaVersion);
    const expected = Array.from({ length: schemaVersion - 1 }, (_, index) => index + 1);
    // A gap in the chain would make some stored events unreadable; refuse at start, not on the first old event.
    if (versions.join(',') !== expected.join(',')) {
      throw new Error(
        `event registry: ${type} v${schemaVersion} needs upcasters for versions [${expected.join(', ')}] in order, got [${versions.join(', ')}]`,
      );
    }
    byType.set(type, entry);
  }
  return byType;
}

function readEnvelope(byType: ReadonlyMap<string, RegistryEntry>, raw: unknown): EventEnvelope {
  const envelope = Envelope.safeParse(raw);
  if (!envelope.success) {
    const { type, schemaVersion } = peek(raw);
    throw new EventParseError('invalid_envelope', type, schemaVersion, issuesOf(envelope.error, ''), 'not a valid event envelope');
  }
  const { type, schemaVersion, metadata } = envelope.data;
  const entry = byType.get(type);
  if (entry === undefined) throw new EventParseError('unknown_event_type', type, schemaVersion, [], 'unknown event type');
  const current = entry.current.schemaVersion;
  if (schemaVersion > current) {
    throw new EventParseError(
      'unknown_schema_version',
      type,
      schemaVersion,
      [],
      `this reader knows up to v${current}; deploy the newer contracts before consuming`,
    );
  }
  return { type, schemaVersion: current, data: upcast(entry, schemaVersion, envelope.data.data), metadata };
}

function upcast(entry: RegistryEntry, fromVersion: number, data: unknown): unknown {
  const { type, schemaVersion: current } = entry.current;
  let value = data;
  for (let version = fromVersion; version < current; version += 1) {
    const step = entry.past?.[version - 1];
    if (step === undefined) throw new EventParseError('unknown_schema_version', type, version, [], 'no upcaster for this version');
    const parsed = step.data.safeParse(value);
    if (!parsed.success) throw invalidData(type, version, fromVersion, parsed.error);
    value = runUpcaster(type, version, () => step.upcast(parsed.data));
  }
  const parsed = entry.current.data.safeParse(value);
  if (!parsed.success) throw invalidData(type, current, fromVersion, parsed.error);
  return parsed.data;
}

function invalidData(type: string, version: number, fromVersion: number, error: z.ZodError): EventParseError {
  // Data that fails at the version it was written in is the producer's fault; data that fails after
  // an upcaster ran is ours.
  return version === fromVersion
    ? new EventParseError('invalid_event_data', type, version, issuesOf(error, 'data'), 'data does not match the schema')
    : new EventParseError(
        'upcast_failed',
        type,
        version,
        issuesOf(error, 'data'),
        `data upcast from v${fromVersion} does not match v${version}`,
      );
}

function runUpcaster(type: string, version: number, lift: () => unknown): unknown {
  try {
    return lift();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new EventParseError('upcast_failed', type, version, [], `upcaster v${version}→v${version + 1} threw: ${reason}`);
  }
}

function peek(raw: unknown): { type: string | null; schemaVersion: number | null } {
  if (typeof raw !== 'object' || raw === null) return { type: null, schemaVersion: null };
  const { type, schemaVersion } = raw as { type?: unknown; schemaVersion?: unknown };
  return { type: typeof type === 'string' ? type : null, schemaVersion: typeof schemaVersion === 'number' ? schemaVersion : null };
}
