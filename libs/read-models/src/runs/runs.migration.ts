import { Migration } from '@mikro-orm/migrations';

/**
 * Runs and their calls (DESIGN.md §7): which runs an actor has, and which executions each attempt
 * created or asked again. A projection, rebuildable from the events at any time.
 */
export class RunsMigration extends Migration {
  static readonly id = '115-runs';

  override up(): void {
    this.addSql(`
CREATE TABLE onceport.runs (
  run_id          text PRIMARY KEY,
  actor           text        NOT NULL,
  trigger         text        NOT NULL,
  opened_at       timestamptz NOT NULL,
  attempts        integer     NOT NULL,
  last_attempt_at timestamptz NOT NULL
);
CREATE INDEX runs_actor_idx ON onceport.runs (actor, opened_at DESC);
CREATE TABLE onceport.run_calls (
  event_id     text PRIMARY KEY,
  run_id       text        NOT NULL,
  attempt      integer     NOT NULL,
  execution_id text        NOT NULL,
  relation     text        NOT NULL CHECK (relation IN ('created', 'asked_again')),
  called_at    timestamptz NOT NULL
);
CREATE INDEX run_calls_run_idx ON onceport.run_calls (run_id, attempt, called_at);
`);
  }
}
