import type { StoredEvent } from '../event';
import type { ClientPool, Queryable } from '../queryable';
import { STORED_EVENT_COLUMNS, rowToStoredEvent, type StoredEventRow } from '../stored-event-row';
import { EXPORT_FORMAT, EXPORT_FORMAT_VERSION, type ExportSummary, eventLine, headerLine, summaryLine } from './export-format';
import { SummaryCollector } from './export-summary';

export interface ExportRange {
  /** Inclusive global-position bounds; null = from the first / to the last event. */
  readonly fromPosition: bigint | null;
  readonly toPosition: bigint | null;
}

/**
 * The lines of an audit export (see export-format.ts), read in global order from one repeatable-read
 * snapshot: a consistent cut even while services keep appending, so no stream is caught half-written
 * and no late-committing transaction leaves a hole behind the reader. `done` receives the summary.
 */
export async function* exportLines(
  pool: ClientPool,
  range: ExportRange,
  options: { readonly now?: Date; readonly pageSize?: number; readonly done?: (summary: ExportSummary) => void } = {},
): AsyncGenerator<string> {
  const client = await pool.connect();
  let finished = false;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    yield headerLine({
      format: EXPORT_FORMAT,
      formatVersion: EXPORT_FORMAT_VERSION,
      exportedAt: (options.now ?? new Date()).toISOString(),
      ...range,
    });
    const collector = new SummaryCollector();
    for await (const event of readInGlobalOrder(client, range, options.pageSize ?? 5000)) {
      collector.add(event);
      yield eventLine(event);
    }
    const summary = collector.summary();
    yield summaryLine(summary);
    options.done?.(summary);
    await client.query('COMMIT');
    finished = true;
  } finally {
    // An error, or a consumer that stopped mid-way, leaves the snapshot open: drop the connection, its transaction with it.
    client.release(!finished);
  }
}

async function* readInGlobalOrder(db: Queryable, range: ExportRange, pageSize: number): AsyncGenerator<StoredEvent> {
  let after = range.fromPosition === null ? -1n : range.fromPosition - 1n;
  const to = range.toPosition === null ? null : String(range.toPosition);
  for (;;) {
    const page = await db.query<StoredEventRow>(
      `SELECT ${STORED_EVENT_COLUMNS} FROM onceport.events
       WHERE global_position > $1 AND ($2::bigint IS NULL OR global_position <= $2::bigint)
       ORDER BY global_position LIMIT $3`,
      [String(after), to, pageSize],
    );
    for (const row of page.rows) yield rowToStoredEvent(row);
    const last = page.rows[page.rows.length - 1];
    if (!last || page.rows.length < pageSize) return;
    after = BigInt(last.global_position_text);
  }
}
