import { Migration } from '@mikro-orm/migrations';

/**
 * What the outbox relay had JetStream acknowledge, one row per published batch: the store
 * checkpoint the batch started from, and the highest stream sequence acknowledged for it with the
 * event id stored there. A relay started later (a new leader, or one restarted with the broker)
 * compares these with the stream and so sees a tail the broker lost, or a stream wiped and
 * refilled, that its memory could not tell it about.
 */
export class RelayPublicationsMigration extends Migration {
  static readonly id = '050-relay-publications';

  override up(): void {
    this.addSql(`
CREATE TABLE onceport.relay_publications (
  stream               text        NOT NULL,
  stream_sequence      bigint      NOT NULL,
  event_id             uuid        NOT NULL,
  from_transaction_id  xid8        NOT NULL,
  from_global_position bigint      NOT NULL,
  published_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (stream, stream_sequence)
);
`);
  }
}
