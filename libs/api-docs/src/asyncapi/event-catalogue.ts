import {
  EVENTS_OFF_JETSTREAM,
  type EventDefinition,
  IdempotencyKeyBoundEvent,
  IntentClaimedEvent,
  type PastVersion,
  campaignEventDefinitions,
  executionEventDefinitions,
  executionEventPastVersions,
  runEventDefinitions,
  sessionEventDefinitions,
  vaultEventDefinitions,
} from '@onceport/contracts';
import { type z } from 'zod';

/** The kind of stream an event is appended to; only execution streams' events are relayed to JetStream. */
export type StreamKind = 'execution' | 'intent' | 'idempotency-key' | 'vault' | 'session' | 'run' | 'campaign';

/** One schema version of one event, where it is (or would be) published. */
export interface CatalogueVersion {
  readonly schemaVersion: number;
  readonly subject: string;
  readonly data: z.ZodType;
  /** A past version: read from old streams and lifted to the next version on read. */
  readonly upcastTo: number | null;
}

export interface CatalogueEvent {
  readonly type: string;
  readonly stream: StreamKind;
  /** Published to JetStream by the outbox relay (execution streams' events a service acts on); otherwise it stays in the store. */
  readonly relayed: boolean;
  /** Oldest first; the last is the current version. */
  readonly versions: readonly CatalogueVersion[];
}

const RELAYED: ReadonlySet<StreamKind> = new Set(['execution']);

/**
 * Every event the contracts registry knows, with every schema version, read from the registries
 * themselves: an event added there is in the catalogue (and the drift test fails until the
 * committed document says so).
 */
export function eventCatalogue(): readonly CatalogueEvent[] {
  const kinds: readonly [StreamKind, readonly EventDefinition[], Partial<Record<string, readonly PastVersion[]>>][] = [
    ['execution', Object.values(executionEventDefinitions), executionEventPastVersions],
    ['intent', [IntentClaimedEvent], {}],
    ['idempotency-key', [IdempotencyKeyBoundEvent], {}],
    ['vault', Object.values(vaultEventDefinitions), {}],
    ['session', Object.values(sessionEventDefinitions), {}],
    ['run', Object.values(runEventDefinitions), {}],
    ['campaign', Object.values(campaignEventDefinitions), {}],
  ];
  return kinds.flatMap(([stream, definitions, past]) =>
    definitions.map((current) => ({
      type: current.type,
      stream,
      relayed: RELAYED.has(stream) && !EVENTS_OFF_JETSTREAM.has(current.type),
      versions: [
        ...(past[current.type] ?? []).map((version) => ({
          schemaVersion: version.schemaVersion,
          subject: subjectOfVersion(current, version.schemaVersion),
          data: version.data,
          upcastTo: version.schemaVersion + 1,
        })),
        { schemaVersion: current.schemaVersion, subject: current.subject, data: current.data, upcastTo: null },
      ],
    })),
  );
}

/** `onceport.execution.execution-accepted.v2` → the same subject at version 1. */
function subjectOfVersion(current: EventDefinition, schemaVersion: number): string {
  const suffix = `.v${current.schemaVersion}`;
  if (!current.subject.endsWith(suffix)) throw new Error(`api-docs: ${current.subject} does not end in ${suffix}`);
  return `${current.subject.slice(0, -suffix.length)}.v${schemaVersion}`;
}
