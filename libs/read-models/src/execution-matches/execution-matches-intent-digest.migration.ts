import { Migration } from '@mikro-orm/migrations';

/**
 * The intent lookup indexes a digest of the intent scope, not the scope itself. A btree entry holds
 * at most ~2.7 kB: one event with a long (incompressible) scope could not enter the old index, its
 * projection batch failed on every retry, and everything reading `execution_matches` behind it
 * (settlement, approvals) stopped. Intake now refuses scopes above 200 characters, but events
 * accepted before that are in the store for good, and a read model must apply every event there is.
 *
 * md5 is only the index key (it is IMMUTABLE, as an index expression must be; `convert_to` for
 * sha256 is not): lookups compare `intent_scope` itself as well, so a collision costs a row read,
 * never a wrong match. Rows, and what existing executions match, are unchanged.
 */
export class ExecutionMatchesIntentDigestMigration extends Migration {
  static readonly id = '101-execution-matches-intent-digest';

  override up(): void {
    this.addSql(`
DROP INDEX IF EXISTS onceport.execution_matches_intent_idx;
CREATE INDEX execution_matches_intent_digest_idx
  ON onceport.execution_matches (fingerprint, actor, md5(intent_scope), accepted_at DESC);
`);
  }
}
