import { Migration } from '@mikro-orm/migrations';

/**
 * Events a subscriber (a projection, a consumer durable) could not apply. A row counts the failed
 * attempts of one event for one subscriber (`failing`); after the configured number it is
 * `quarantined` and skipped, so everything after it keeps flowing. An operator asks for a retry
 * (`retry_requested`, taken by the owning process as `retrying`), which ends `resolved` when the
 * event applies, or releases it (`released`, with who and why). Not append-only: it is operating
 * state about the log, not part of it. Numbered 00x like the event store's own steps (tests tell
 * those apart by that prefix), and late in that range so that other store steps can come before it.
 */
export class EventQuarantineMigration extends Migration {
  static readonly id = '009-event-quarantine';

  override up(): void {
    this.addSql(`
CREATE TABLE onceport.event_quarantine (
  subscriber         text        NOT NULL CHECK (length(subscriber) BETWEEN 1 AND 200),
  event_id           uuid        NOT NULL,
  stream_id          text        NOT NULL CHECK (length(stream_id) BETWEEN 1 AND 200),
  global_position    bigint      NOT NULL,
  event_type         text        NOT NULL CHECK (length(event_type) BETWEEN 1 AND 200),
  status             text        NOT NULL CHECK (status IN ('failing', 'quarantined', 'retry_requested', 'retrying', 'resolved', 'released')),
  attempts           integer     NOT NULL CHECK (attempts >= 0),
  last_error         text        NOT NULL CHECK (length(last_error) <= 2000),
  first_attempt_at   timestamptz NOT NULL DEFAULT now(),
  last_attempt_at    timestamptz NOT NULL DEFAULT now(),
  quarantined_at     timestamptz,
  retry_requested_by text        CHECK (length(retry_requested_by) <= 200),
  retry_requested_at timestamptz,
  closed_by          text        CHECK (length(closed_by) <= 200),
  close_reason       text        CHECK (length(close_reason) <= 1000),
  closed_at          timestamptz,
  PRIMARY KEY (subscriber, event_id)
);
CREATE INDEX event_quarantine_status_idx ON onceport.event_quarantine (status, subscriber, quarantined_at);
`);
  }
}
