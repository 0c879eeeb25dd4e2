import { Migration } from '@mikro-orm/migrations';

/**
 * Executions by (fingerprint, actor, intent scope): the lookup retry matching starts from, and the
 * list operators browse. A projection, rebuildable from the events at any time.
 */
export class ExecutionMatchesMigration extends Migration {
  static readonly id = '100-execution-matches';

  override up(): void {
    this.addSql(`
CREATE TABLE onceport.execution_matches (
  execution_id               text PRIMARY KEY,
  fingerprint                text        NOT NULL,
  actor                      text        NOT NULL,
  intent_scope               text        NOT NULL,
  tool                       text        NOT NULL,
  status                     text        NOT NULL,
  accepted_at                timestamptz NOT NULL,
  correlation_window_ends_at timestamptz NOT NULL,
  ledger_retention_ends_at   timestamptz,
  stream_version             integer     NOT NULL,
  state                      jsonb       NOT NULL
);
CREATE INDEX execution_matches_intent_idx ON onceport.execution_matches (fingerprint, actor, intent_scope, accepted_at DESC);
CREATE INDEX execution_matches_status_idx ON onceport.execution_matches (status, accepted_at);
`);
  }
}
