import { type Checkpoint, type Queryable } from '@onceport/event-store';

/** One acknowledged batch: where it started in the store, and its highest stream sequence and the event stored there. */
export interface Publication {
  readonly streamSequence: number;
  readonly eventId: string;
  readonly from: Checkpoint;
}

/**
 * The relay's durable memory of what JetStream acknowledged (table `onceport.relay_publications`),
 * so that what a broker lost is found by whichever relay leads next, not only by the one that
 * published. Rows older than the retention go, except the newest, which alone tells a wiped stream.
 */
export class PublicationLog {
  constructor(
    private readonly db: Queryable,
    private readonly stream: string,
    private readonly retentionMs: number,
  ) {}

  async record(publication: Publication): Promise<void> {
    await this.db.query(
      `WITH added AS (
         INSERT INTO onceport.relay_publications (stream, stream_sequence, event_id, from_transaction_id, from_global_position)
         VALUES ($1, $2, $3, $4::text::xid8, $5) ON CONFLICT DO NOTHING)
       DELETE FROM onceport.relay_publications
        WHERE stream = $1 AND stream_sequence < $2 AND published_at < now() - $6 * interval '1 millisecond'`,
      [
        this.stream,
        publication.streamSequence,
        publication.eventId,
        String(publication.from.transactionId),
        String(publication.from.globalPosition),
        this.retentionMs,
      ],
    );
  }

  /** Newest (highest stream sequence) first. */
  async newestFirst(): Promise<Publication[]> {
    // The text copy gets its own name: `ORDER BY stream_sequence` would otherwise sort the text
    // output column ('8' after '30'), not the bigint.
    const result = await this.db.query<{ sequence: string; event_id: string; tx: string; position: string }>(
      `SELECT stream_sequence::text AS sequence, event_id::text, from_transaction_id::text AS tx, from_global_position::text AS position
         FROM onceport.relay_publications WHERE stream = $1 ORDER BY stream_sequence DESC`,
      [this.stream],
    );
    return result.rows.map((row) => ({
      streamSequence: Number(row.sequence),
      eventId: row.event_id,
      from: { transactionId: BigInt(row.tx), globalPosition: BigInt(row.position) },
    }));
  }

  /** Forgets what the broker no longer holds (everything above `intactSequence`). */
  async forgetAbove(intactSequence: number): Promise<void> {
    await this.db.query('DELETE FROM onceport.relay_publications WHERE stream = $1 AND stream_sequence > $2', [
      this.stream,
      intactSequence,
    ]);
  }
}
