import { Migration } from '@mikro-orm/migrations';

/**
 * The append-only event store. Why each piece exists:
 * - `transaction_id` (the writer's xid8) lets readers tail without skipping late commits: they only
 *   read rows whose transaction is older than every still-running one (`pg_snapshot_xmin`).
 * - `unique (stream_id, stream_version)` is the optimistic-concurrency guard.
 * - the chain trigger links each row to the previous row of its stream and refuses version gaps,
 *   so a stream is contiguous by construction and any later edit breaks the chain.
 * - update/delete/truncate triggers make the table append-only in the database itself.
 */
export class EventStoreMigration extends Migration {
  static readonly id = '001-event-store';

  override up(): void {
    this.addSql(`
CREATE TABLE onceport.events (
  global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  transaction_id  xid8        NOT NULL DEFAULT pg_current_xact_id(),
  event_id        uuid        NOT NULL UNIQUE,
  stream_id       text        NOT NULL CHECK (length(stream_id) BETWEEN 1 AND 200),
  stream_version  integer     NOT NULL CHECK (stream_version >= 1),
  event_type      text        NOT NULL,
  schema_version  integer     NOT NULL CHECK (schema_version >= 1),
  data            jsonb       NOT NULL,
  metadata        jsonb       NOT NULL,
  recorded_at     timestamptz NOT NULL,
  content_hash    bytea       NOT NULL CHECK (length(content_hash) = 32),
  prev_hash       bytea,
  chain_hash      bytea,
  CONSTRAINT events_stream_version_unique UNIQUE (stream_id, stream_version)
);
CREATE INDEX events_tail_idx ON onceport.events (transaction_id, global_position);

CREATE FUNCTION onceport.chain_event() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  previous bytea;
BEGIN
  IF NEW.stream_version = 1 THEN
    previous := decode(repeat('00', 32), 'hex');
  ELSE
    SELECT chain_hash INTO previous FROM onceport.events
      WHERE stream_id = NEW.stream_id AND stream_version = NEW.stream_version - 1;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'stream % has no version % (yet); cannot append version %',
        NEW.stream_id, NEW.stream_version - 1, NEW.stream_version
        USING ERRCODE = 'OP001';
    END IF;
  END IF;
  NEW.prev_hash := previous;
  NEW.chain_hash := sha256(previous || NEW.content_hash);
  RETURN NEW;
END
$fn$;
CREATE TRIGGER events_chain BEFORE INSERT ON onceport.events
  FOR EACH ROW EXECUTE FUNCTION onceport.chain_event();

CREATE FUNCTION onceport.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'onceport.events is append-only: % refused', TG_OP USING ERRCODE = 'OP002';
END
$fn$;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON onceport.events
  FOR EACH ROW EXECUTE FUNCTION onceport.refuse_change();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON onceport.events
  FOR EACH STATEMENT EXECUTE FUNCTION onceport.refuse_change();

-- Wakes tailing readers at commit (NOTIFY is transactional); they also poll, so a lost
-- notification only delays them.
CREATE FUNCTION onceport.notify_appended() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_notify('onceport_events', '');
  RETURN NULL;
END
$fn$;
CREATE TRIGGER events_notify AFTER INSERT ON onceport.events
  FOR EACH STATEMENT EXECUTE FUNCTION onceport.notify_appended();

CREATE TABLE onceport.subscription_checkpoints (
  subscription_id text PRIMARY KEY,
  transaction_id  xid8        NOT NULL,
  global_position bigint      NOT NULL,
  updated_at      timestamptz NOT NULL DEFAULT now()
);

-- Consumers record handled event ids here, in the same transaction as their effects.
CREATE TABLE onceport.consumer_inbox (
  consumer    text        NOT NULL,
  event_id    uuid        NOT NULL,
  handled_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);
`);
  }
}
