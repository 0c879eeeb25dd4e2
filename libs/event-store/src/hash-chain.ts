import { createHash } from 'node:crypto';
import { canonicalJson } from '@onceport/contracts';
import type { JsonObject } from './json';

/** The `prev_hash` of every stream's first event. */
export const GENESIS_HASH: Buffer = Buffer.alloc(32);

/** The fields of an event that its content hash covers: everything but the positions and the chain. */
export interface HashedContent {
  readonly eventId: string;
  readonly streamId: string;
  readonly streamVersion: number;
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: JsonObject;
  readonly metadata: JsonObject;
  readonly recordedAt: Date;
}

export function contentHash(event: HashedContent): Buffer {
  return createHash('sha256').update(hashedContentJson(event)).digest();
}

/** The canonical text the content hash is taken over (bulk loaders template it). */
export function hashedContentJson(event: HashedContent): string {
  // Sorted keys at every depth, so the hash survives a round trip through jsonb (which reorders them).
  return canonicalJson(
    {
      eventId: event.eventId,
      streamId: event.streamId,
      streamVersion: event.streamVersion,
      type: event.type,
      schemaVersion: event.schemaVersion,
      data: event.data,
      metadata: event.metadata,
      recordedAt: event.recordedAt.toISOString(),
    },
    { omitUndefinedMembers: true },
  );
}

/** Mirrors the database trigger: chain = sha256(previous chain hash ‖ content hash). */
export function chainHash(previous: Buffer, content: Buffer): Buffer {
  return createHash('sha256').update(previous).update(content).digest();
}
