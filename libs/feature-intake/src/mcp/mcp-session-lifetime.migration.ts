import { Migration } from '@mikro-orm/migrations';

/**
 * Sessions end (DELETE) and expire (idle), and what they leave behind is pruned: `last_seen_at`
 * and `ended_at` say which, indexes let the pruner find them without scanning. A REST agent process
 * records when it was first used: one never used is pruned after a while.
 */
export class McpSessionLifetimeMigration extends Migration {
  static readonly id = '210-mcp-session-lifetime';

  override up(): void {
    this.addSql(`
ALTER TABLE onceport.mcp_sessions
  ADD COLUMN last_seen_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN ended_at     timestamptz;
CREATE INDEX mcp_sessions_last_seen_idx ON onceport.mcp_sessions (last_seen_at);
CREATE INDEX mcp_sessions_ended_idx ON onceport.mcp_sessions (ended_at) WHERE ended_at IS NOT NULL;
CREATE INDEX mcp_stream_events_session_idx ON onceport.mcp_stream_events (session_id);
ALTER TABLE onceport.rest_agent_processes ADD COLUMN used_at timestamptz;
CREATE INDEX rest_agent_processes_unused_idx ON onceport.rest_agent_processes (issued_at) WHERE used_at IS NULL;
`);
  }
}
