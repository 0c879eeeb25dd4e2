import { Migration } from '@mikro-orm/migrations';

/**
 * MCP sessions and the events of their SSE streams live in PostgreSQL, so any intake replica can
 * serve a session and replay a stream after `Last-Event-ID`.
 */
export class McpTablesMigration extends Migration {
  static readonly id = '200-mcp-sessions';

  override up(): void {
    this.addSql(`
CREATE TABLE onceport.mcp_sessions (
  session_id  text        PRIMARY KEY,
  actor       text        NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE onceport.mcp_stream_events (
  event_id    bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  stream_id   text        NOT NULL,
  session_id  text        NOT NULL,
  message     jsonb       NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mcp_stream_events_stream_idx ON onceport.mcp_stream_events (stream_id, event_id);
`);
  }
}
