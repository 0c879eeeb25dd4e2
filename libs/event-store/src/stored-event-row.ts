import type { StoredEvent } from './event';
import type { JsonObject } from './json';

/** The columns every read selects, in the shape `rowToStoredEvent` expects. */
// The text casts get their own names: an alias equal to the column name would make ORDER BY sort text.
export const STORED_EVENT_COLUMNS = `global_position::text AS global_position_text, transaction_id::text AS transaction_id_text,
  event_id, stream_id, stream_version, event_type, schema_version, data, metadata, recorded_at,
  content_hash, prev_hash, chain_hash`;

export interface StoredEventRow {
  global_position_text: string;
  transaction_id_text: string;
  event_id: string;
  stream_id: string;
  stream_version: number;
  event_type: string;
  schema_version: number;
  data: JsonObject;
  metadata: JsonObject;
  recorded_at: Date;
  content_hash: Buffer;
  prev_hash: Buffer;
  chain_hash: Buffer;
}

export function rowToStoredEvent(row: StoredEventRow): StoredEvent {
  return {
    globalPosition: BigInt(row.global_position_text),
    transactionId: BigInt(row.transaction_id_text),
    eventId: row.event_id,
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    type: row.event_type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: row.metadata,
    recordedAt: row.recorded_at,
    contentHash: row.content_hash,
    prevHash: row.prev_hash,
    chainHash: row.chain_hash,
  };
}
