import { GENESIS_HASH, chainHash, contentHash } from '../hash-chain';
import type { JsonObject } from '../json';

/** The fields of a stored event the verifier needs; a database row or an exported JSON line. */
export interface ChainedEvent {
  readonly globalPosition: bigint;
  readonly eventId: string;
  readonly streamId: string;
  readonly streamVersion: number;
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: JsonObject;
  readonly metadata: JsonObject;
  readonly recordedAt: Date;
  readonly contentHash: Buffer;
  readonly prevHash: Buffer;
  readonly chainHash: Buffer;
}

export type BrokenLinkProblem =
  | 'content_changed' // the event's fields no longer hash to its content hash
  | 'version_gap' // a version is missing before this one: an event was removed
  | 'version_out_of_order' // a version repeats or goes back: an event was inserted or moved
  | 'previous_hash_mismatch' // the link does not point at the event before it
  | 'chain_hash_mismatch'; // the stored chain hash is not sha256(previous ‖ content)

export interface BrokenLink {
  readonly streamId: string;
  readonly streamVersion: number;
  readonly globalPosition: bigint;
  readonly problem: BrokenLinkProblem;
  readonly detail: string;
}

export interface VerificationReport {
  readonly eventsChecked: number;
  readonly streamsChecked: number;
  readonly firstBrokenLink: BrokenLink | null;
}

/**
 * Checks each stream's hash chain. Events may arrive interleaved across streams (global order)
 * but in version order within a stream. Stops at the first broken link. Removing a stream's
 * newest events is not visible to a chain alone; compare stream heads with an exported anchor.
 */
export async function verifyChains(
  events: AsyncIterable<ChainedEvent> | Iterable<ChainedEvent>,
  onProgress?: (eventsChecked: number) => void,
): Promise<VerificationReport> {
  const heads = new Map<string, { version: number; chainHash: Buffer }>();
  let checked = 0;
  for await (const event of events) {
    const broken = checkLink(event, heads.get(event.streamId));
    if (broken) return { eventsChecked: checked, streamsChecked: heads.size, firstBrokenLink: broken };
    heads.set(event.streamId, { version: event.streamVersion, chainHash: event.chainHash });
    checked++;
    if (onProgress && checked % 100_000 === 0) onProgress(checked);
  }
  return { eventsChecked: checked, streamsChecked: heads.size, firstBrokenLink: null };
}

function checkLink(event: ChainedEvent, head: { version: number; chainHash: Buffer } | undefined): BrokenLink | null {
  const at = { streamId: event.streamId, streamVersion: event.streamVersion, globalPosition: event.globalPosition };
  const expectedVersion = (head?.version ?? 0) + 1;
  if (event.streamVersion > expectedVersion) {
    return { ...at, problem: 'version_gap', detail: `expected version ${expectedVersion} before ${event.streamVersion}` };
  }
  if (event.streamVersion < expectedVersion) {
    return { ...at, problem: 'version_out_of_order', detail: `version ${event.streamVersion} after ${expectedVersion - 1}` };
  }
  if (!contentHash(event).equals(event.contentHash)) {
    return { ...at, problem: 'content_changed', detail: `event ${event.eventId} (${event.type}) does not match its content hash` };
  }
  const previous = head?.chainHash ?? GENESIS_HASH;
  if (!previous.equals(event.prevHash)) {
    return { ...at, problem: 'previous_hash_mismatch', detail: 'previous hash is not the chain hash of the event before it' };
  }
  if (!chainHash(previous, event.contentHash).equals(event.chainHash)) {
    return { ...at, problem: 'chain_hash_mismatch', detail: 'chain hash is not sha256(previous ‖ content)' };
  }
  return null;
}
