import { Migration } from '@mikro-orm/migrations';

/**
 * The operators' runs list: every run newest first, paged by keyset (opened_at, run_id), optionally
 * of one trigger. Without these an admin's first page sorts the whole table.
 */
export class RunsListingMigration extends Migration {
  static readonly id = '116-runs-listing';

  override up(): void {
    this.addSql(`
CREATE INDEX runs_opened_idx ON onceport.runs (opened_at DESC, run_id DESC);
CREATE INDEX runs_trigger_idx ON onceport.runs (trigger, opened_at DESC, run_id DESC);
`);
  }
}
