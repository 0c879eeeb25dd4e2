import type { JsonObject } from './json';

/** An event about to be appended. `eventId` is a UUID chosen by the writer (it is the dedup key downstream). */
export interface NewEvent {
  readonly eventId: string;
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: JsonObject;
  readonly metadata: JsonObject;
}

/** An event as stored: positioned globally and in its stream, and chained to its predecessor. */
export interface StoredEvent extends NewEvent {
  readonly streamId: string;
  readonly streamVersion: number;
  readonly globalPosition: bigint;
  /** The writing transaction's id: tailing orders by (transactionId, globalPosition). */
  readonly transactionId: bigint;
  readonly recordedAt: Date;
  readonly contentHash: Buffer;
  readonly prevHash: Buffer;
  readonly chainHash: Buffer;
}

/** An event as its writer knows it right after its commit: what it appended, and where it landed. */
export interface CommittedEvent extends NewEvent {
  readonly streamId: string;
  readonly streamVersion: number;
  readonly globalPosition: bigint;
  readonly recordedAt: Date;
}

/**
 * What the writer expects the stream's current version to be: a number (0 = empty stream),
 * `'no_stream'` (same as 0), or `'any'` (append wherever the stream ends).
 */
export type ExpectedVersion = number | 'no_stream' | 'any';

export interface AppendResult {
  /** The stream's version after this append; pass it as the next expected version. */
  readonly nextExpectedVersion: number;
  readonly globalPositions: readonly bigint[];
}
