import { Migration } from '@mikro-orm/migrations';
import { STREAM_EVENT_ID_BLOCK } from './mcp-stream-event-ids';

/**
 * A request stream's event ids are drawn in the process that serves the stream, a block at a time
 * (see `McpStreamEventIds`): each value the sequence hands out now starts a block of its own, so an
 * id drawn in a process never meets one the column's default gives an insert, nor another block's.
 */
export class McpStreamEventIdBlocksMigration extends Migration {
  static readonly id = '212-mcp-stream-event-id-blocks';

  override up(): void {
    this.addSql(`ALTER TABLE onceport.mcp_stream_events ALTER COLUMN event_id SET INCREMENT BY ${STREAM_EVENT_ID_BLOCK};`);
  }
}
