import type { Queryable } from '@onceport/event-store';

/** Ids per block: the column's identity steps by as much (migration 212), so blocks never overlap. */
export const STREAM_EVENT_ID_BLOCK = 4096;

interface Block {
  next: bigint;
  readonly end: bigint;
  readonly size: bigint;
}

/**
 * Event ids for the request streams this process serves, known before their rows commit: the SDK
 * sends an SSE event as soon as its id is known, so an answer no longer waits for the commit of its
 * stream event (nor a call's handling for its priming event's). A request stream is written by the
 * one process that holds its response, so its ids rise in the order its events are written, which
 * is all a replay (`event_id > Last-Event-ID` within the stream) needs. A block is one `nextval`
 * and the ids up to the sequence's step; the next is fetched when a quarter of the current one is
 * left, so a burst rarely waits.
 */
export class McpStreamEventIds {
  private current: Block | null = null;
  private spare: Block | null = null;
  private fetching: Promise<void> | null = null;

  constructor(private readonly db: Queryable) {}

  /** An id now, or null when no block is at hand (then await `ready()` and ask again). */
  takeNow(): bigint | null {
    if ((!this.current || this.current.next >= this.current.end) && this.spare) {
      this.current = this.spare;
      this.spare = null;
    }
    const block = this.current;
    if (!block || block.next >= block.end) {
      this.prefetch();
      return null;
    }
    const id = block.next;
    block.next += 1n;
    if (!this.spare && (block.end - block.next) * 4n < block.size) this.prefetch();
    return id;
  }

  /** Resolves once a block is at hand (rejects if it could not be fetched). */
  async ready(): Promise<void> {
    while ((!this.current || this.current.next >= this.current.end) && !this.spare) {
      this.prefetch();
      await this.fetching;
    }
  }

  private prefetch(): void {
    if (this.spare || this.fetching) return;
    const fetching = this.fetchBlock()
      .then((block) => {
        this.spare = block;
      })
      .finally(() => {
        this.fetching = null;
      });
    fetching.catch(() => undefined); // reported to whoever awaits ready(); the next take fetches again
    this.fetching = fetching;
  }

  /** One `nextval` and the ids after it up to the sequence's step: whatever the step, no other block or insert gets them. */
  private async fetchBlock(): Promise<Block> {
    const result = await this.db.query<{ first: string; size: string }>(
      `SELECT nextval(s.seq)::text AS first, (SELECT seqincrement FROM pg_sequence WHERE seqrelid = s.seq::regclass)::text AS size
         FROM (SELECT pg_get_serial_sequence('onceport.mcp_stream_events', 'event_id') AS seq) s`,
    );
    const row = result.rows[0];
    if (!row) throw new Error('the stream event id sequence gave no value');
    const first = BigInt(row.first);
    const size = BigInt(row.size);
    return { next: first, end: first + size, size };
  }
}
