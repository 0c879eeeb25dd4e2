import { processCounter, processGauge } from '../metrics/process-metrics';
import type { Queryable } from '../queryable';
import { OPEN_STATUSES } from './quarantine-policy';

/*
 * The quarantine's two metrics, on the process registry (what `GET /metrics` serves).
 * Labels are subscriber names only: code constants, so the series stay few; event ids go to the
 * log line and the admin API, never into a label.
 */
const quarantinedTotal = processCounter({
  name: 'onceport_events_quarantined_total',
  help: 'Events a subscriber stopped retrying and skipped (quarantined).',
  labelNames: ['subscriber'],
});

/** Databases whose open entries the gauge reports (one per runtime in the process). */
const sources = new Set<Queryable>();

processGauge({
  name: 'onceport_quarantine_open_entries',
  help: 'Quarantined events not yet retried successfully or released, by subscriber.',
  labelNames: ['subscriber'],
  async collect() {
    this.reset();
    for (const db of sources) {
      let rows: { subscriber: string; open: string }[];
      try {
        rows = (
          await db.query<{ subscriber: string; open: string }>(
            'SELECT subscriber, count(*)::text AS open FROM onceport.event_quarantine WHERE status = ANY($1) GROUP BY subscriber',
            [OPEN_STATUSES],
          )
        ).rows;
      } catch (error) {
        // The database is unreachable: the gauge has no series this scrape, rather than /metrics
        // failing as a whole (readiness reports the database).
        void error;
        continue;
      }
      for (const row of rows) this.inc({ subscriber: row.subscriber }, Number(row.open));
    }
  },
});

export function countQuarantined(subscriber: string): void {
  quarantinedTotal.inc({ subscriber });
}

/** Lets the open-entries gauge read this database; the returned function stops it (before the pool closes). */
export function reportOpenQuarantine(db: Queryable): () => void {
  sources.add(db);
  return () => sources.delete(db);
}
