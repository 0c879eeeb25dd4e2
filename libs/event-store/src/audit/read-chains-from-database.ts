import type { StoredEvent } from '../event';
import type { Queryable } from '../queryable';
import { STORED_EVENT_COLUMNS, rowToStoredEvent, type StoredEventRow } from '../stored-event-row';

/** Every event, stream by stream in version order, in pages (keyset pagination keeps memory flat). */
export async function* readChainsFromDatabase(db: Queryable, pageSize = 5000): AsyncGenerator<StoredEvent> {
  let after: { streamId: string; version: number } = { streamId: '', version: 0 };
  for (;;) {
    const page = await db.query<StoredEventRow>(
      `SELECT ${STORED_EVENT_COLUMNS} FROM onceport.events
       WHERE (stream_id, stream_version) > ($1, $2)
       ORDER BY stream_id, stream_version LIMIT $3`,
      [after.streamId, after.version, pageSize],
    );
    for (const row of page.rows) yield rowToStoredEvent(row);
    const last = page.rows[page.rows.length - 1];
    if (!last || page.rows.length < pageSize) return;
    after = { streamId: last.stream_id, version: last.stream_version };
  }
}
