import { Migration } from '@mikro-orm/migrations';

/**
 * The reconciler's own bookkeeping next to `execution_matches` (whose `state` carries the dispatch
 * lease), which the projection rebuilds from events while no event says any of this:
 * - a claim (`claimed_by` until `claimed_until`) keeps the other replicas off an execution while
 *   one settles it, whatever that settling appends meanwhile;
 * - `next_check_at` (a probe's backoff, a lease still running) is only good for the stream version
 *   it was written at: once the execution moves past it, its due time comes from its state again.
 * Applied by the reconciler (ReconcilerModule) after the shared migrations.
 */
export class ReconcileChecksMigration extends Migration {
  static readonly id = '120-reconcile-checks';

  override up(): void {
    this.addSql(`
CREATE TABLE onceport.reconcile_checks (
  execution_id   text        PRIMARY KEY,
  stream_version integer     NOT NULL,
  next_check_at  timestamptz,
  claimed_by     text,
  claimed_until  timestamptz
);
`);
  }
}
