/**
 * Recorded events (libs/contracts/test/fixtures), for the services' contract tests: every consumer
 * must still read and handle what its producers once wrote. Files are read from disk, so a newly
 * recorded fixture is picked up without touching this loader.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURES = join(__dirname, '../test/fixtures');

/** One event as the store held it when recorded (before any upcasting). */
export interface RecordedEvent {
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: Record<string, unknown>;
  readonly metadata: Record<string, unknown> & { readonly eventId: string; readonly occurredAt: string };
}

/** A recorded stream outside the execution streams, with the inputs its id was derived from. */
export interface RecordedStream {
  readonly name: string;
  readonly streamId: string;
  /** e.g. `{ actor, agentProcess }` for a session stream; what a reader looks the stream up by. */
  readonly context: Readonly<Record<string, string>>;
  readonly events: readonly RecordedEvent[];
}

export type RecordedStreamKind = 'vault' | 'sessions' | 'intents' | 'idempotency-keys' | 'runs';

/** A (type, schema version) pair a service reads. */
export interface EventVersion {
  readonly type: string;
  readonly schemaVersion: number;
}

function jsonFiles(dir: string): { name: string; value: unknown }[] {
  return readdirSync(join(FIXTURES, dir))
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      name: file.slice(0, -'.json'.length),
      value: JSON.parse(readFileSync(join(FIXTURES, dir, file), 'utf8')) as unknown,
    }));
}

/** Recorded execution histories by name, each one execution stream starting with ExecutionAccepted. */
export const recordedHistories: Readonly<Record<string, readonly unknown[]>> = Object.fromEntries(
  jsonFiles('histories').map(({ name, value }) => [name, value as unknown[]]),
);

/** The recorded streams of one kind (`vault`, `sessions`, `intents`, `idempotency-keys`). */
export function recordedStreams(kind: RecordedStreamKind): RecordedStream[] {
  return jsonFiles(kind).map(({ name, value }) => {
    const { streamId, context, events } = value as { streamId: string; context?: Record<string, string>; events: RecordedEvent[] };
    return { name, streamId, context: context ?? {}, events };
  });
}

/** Every recorded event anywhere in the fixtures: the execution histories and every other stream. */
export function allRecordedEvents(): RecordedEvent[] {
  const streams: RecordedStreamKind[] = ['vault', 'sessions', 'intents', 'idempotency-keys', 'runs'];
  return [
    ...Object.values(recordedHistories).flatMap((history) => history as RecordedEvent[]),
    ...streams.flatMap((kind) => recordedStreams(kind).flatMap((stream) => stream.events)),
  ];
}

/**
 * Every schema version a reader of `types` must handle: v1 … current of each (older versions reach
 * it through the registry's upcasters). `currentVersion` is the registry's, so bumping a schema
 * grows this list by itself.
 *
 * @example everyVersionOf(vaultEventRegistry.types, (t) => vaultEventRegistry.currentVersion(t))
 */
export function everyVersionOf(types: readonly string[], currentVersion: (type: string) => number | undefined): EventVersion[] {
  return types.flatMap((type) => {
    const current = currentVersion(type);
    if (current === undefined) throw new Error(`no current schema version for ${type}: is it registered?`);
    return Array.from({ length: current }, (_, index) => ({ type, schemaVersion: index + 1 }));
  });
}

/** The consumed (type, version) pairs no recorded event covers, as `Type vN` (the contract tests expect none). */
export function unrecorded(consumed: readonly EventVersion[], recorded: readonly EventVersion[] = allRecordedEvents()): string[] {
  const have = new Set(recorded.map((event) => `${event.type} v${event.schemaVersion}`));
  return [...new Set(consumed.map((event) => `${event.type} v${event.schemaVersion}`))].filter((key) => !have.has(key)).sort();
}
