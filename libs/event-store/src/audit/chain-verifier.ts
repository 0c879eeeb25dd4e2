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
  | 'chain_hash_mismatch' // the stored chain hash is not sha256(previous ‖ content)
  | 'global_position_out_of_order' // an export's lines are not in global order: lines were moved or inserted
  | 'stream_start_mismatch' // an export's first event of a stream is not the one its summary says follows the range start
  | 'stream_head_mismatch' // a stream ends elsewhere than its summary (or checkpoint) says: newest events removed or added
  | 'stream_missing' // the summary (or checkpoint) names a stream the events do not have
  | 'stream_unlisted' // events of a stream the summary does not name
  | 'event_count_mismatch' // the summary counts a different number of events
  | 'summary_missing' // an export without its closing summary line: it was cut short
  | 'summary_anchor_mismatch' // the summary's anchor is not the digest of the summary
  | 'anchor_mismatch' // the export's anchor differs from the one expected (kept elsewhere at export time)
  | 'malformed_line'; // a line of an export that is not a well-formed event

export interface BrokenLink {
  readonly streamId: string;
  readonly streamVersion: number;
  /** The event's global position; null when the problem is about a stream as a whole (e.g. a missing head). */
  readonly globalPosition: bigint | null;
  readonly problem: BrokenLinkProblem;
  readonly detail: string;
}

export interface VerificationReport {
  readonly eventsChecked: number;
  readonly streamsChecked: number;
  readonly firstBrokenLink: BrokenLink | null;
}

/** Where a stream's chain stands after the events seen so far. */
export interface StreamLink {
  readonly version: number;
  readonly chainHash: Buffer;
}

export interface VerifyOptions {
  /** Called every `progressEvery` events (default 100,000) with the count so far. */
  readonly onProgress?: (eventsChecked: number) => void;
  readonly progressEvery?: number;
  /** Also require strictly rising global positions (an export is written in global order). */
  readonly requireGlobalOrder?: boolean;
  /**
   * A range that begins after some streams' first events: a stream may start at any version, and
   * its first link is taken as given and recorded in {@link ChainVerifier.starts} for the caller to
   * compare with an independent record. Without it every stream must start at version 1.
   */
  readonly streamsMayStartLater?: boolean;
}

/**
 * Checks hash chains one event at a time. Events may arrive interleaved across streams (global
 * order) but in version order within a stream. What a per-stream chain cannot show by itself —
 * a stream's newest events removed — is left to the caller, who compares {@link heads} with an
 * independent record (an export's summary, an earlier checkpoint).
 */
export class ChainVerifier {
  private readonly streamHeads = new Map<string, StreamLink>();
  private readonly streamStarts = new Map<string, StreamLink>();
  private lastPosition: bigint | null = null;
  private checked = 0;

  constructor(private readonly options: Pick<VerifyOptions, 'requireGlobalOrder' | 'streamsMayStartLater'> = {}) {}

  get eventsChecked(): number {
    return this.checked;
  }

  /** Each stream's last event seen. */
  heads(): ReadonlyMap<string, StreamLink> {
    return this.streamHeads;
  }

  /** For a range: the version and chain hash each stream's first event here follows (only streams not starting at 1). */
  starts(): ReadonlyMap<string, StreamLink> {
    return this.streamStarts;
  }

  /** The first broken link this event shows, or null when it extends its stream's chain correctly. */
  check(event: ChainedEvent): BrokenLink | null {
    const broken = this.checkOrder(event) ?? checkLink(event, this.streamHeads.get(event.streamId) ?? this.startOf(event));
    if (broken) return broken;
    this.streamHeads.set(event.streamId, { version: event.streamVersion, chainHash: event.chainHash });
    this.lastPosition = event.globalPosition;
    this.checked++;
    return null;
  }

  private startOf(event: ChainedEvent): StreamLink | undefined {
    if (!this.options.streamsMayStartLater || event.streamVersion === 1) return undefined;
    const start = { version: event.streamVersion - 1, chainHash: event.prevHash };
    this.streamStarts.set(event.streamId, start);
    return start;
  }

  private checkOrder(event: ChainedEvent): BrokenLink | null {
    if (!this.options.requireGlobalOrder || this.lastPosition === null || event.globalPosition > this.lastPosition) return null;
    return {
      streamId: event.streamId,
      streamVersion: event.streamVersion,
      globalPosition: event.globalPosition,
      problem: 'global_position_out_of_order',
      detail: `global position ${event.globalPosition} comes after ${this.lastPosition}`,
    };
  }
}

/**
 * Checks each stream's hash chain over a whole sequence of events and stops at the first broken
 * link. Removing a stream's newest events is not visible to a chain alone; compare stream heads
 * with an exported summary or checkpoint (see `verifyExport`, `verifyCheckpoint`).
 */
export async function verifyChains(
  events: AsyncIterable<ChainedEvent> | Iterable<ChainedEvent>,
  options: VerifyOptions | ((eventsChecked: number) => void) = {},
): Promise<VerificationReport> {
  const { onProgress, progressEvery = 100_000, ...rest } = typeof options === 'function' ? { onProgress: options } : options;
  const verifier = new ChainVerifier(rest);
  for await (const event of events) {
    const broken = verifier.check(event);
    if (broken) return { eventsChecked: verifier.eventsChecked, streamsChecked: verifier.heads().size, firstBrokenLink: broken };
    if (onProgress && verifier.eventsChecked % progressEvery === 0) onProgress(verifier.eventsChecked);
  }
  return { eventsChecked: verifier.eventsChecked, streamsChecked: verifier.heads().size, firstBrokenLink: null };
}

function checkLink(event: ChainedEvent, head: StreamLink | undefined): BrokenLink | null {
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
