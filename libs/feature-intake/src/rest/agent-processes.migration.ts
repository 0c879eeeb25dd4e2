import { Migration } from '@mikro-orm/migrations';

/**
 * REST agent processes issued by intake (POST /v1/agent-processes): an unguessable id bound to the
 * actor that asked for it. A REST call may only name a process issued to its own actor, so a human's
 * session grant cannot be reused by typing a name into a header. A used id's row stays; one never
 * used is pruned after a while (`used_at`, migration 210, and `IntakePruner`).
 */
export class RestAgentProcessesMigration extends Migration {
  static readonly id = '201-rest-agent-processes';

  override up(): void {
    this.addSql(`
CREATE TABLE onceport.rest_agent_processes (
  agent_process  text        PRIMARY KEY,
  actor          text        NOT NULL,
  issued_at      timestamptz NOT NULL DEFAULT now()
);
`);
  }
}
