import type { Migration } from '@onceport/event-store';
import { mcpSessionLifetimeMigration } from './mcp/mcp-session-lifetime.migration';
import { mcpTablesMigration } from './mcp/mcp-tables.migration';
import { restAgentProcessesMigration } from './rest/agent-processes.migration';
import { restIdempotentResponsesMigration } from './rest/idempotent-responses.migration';
import { intakeInFlightMigration } from './limits/in-flight.migration';

/** Intake's own tables (MCP sessions and stream events, issued REST agent processes, kept Idempotency-Key responses). */
export const intakeMigrations: readonly Migration[] = [mcpTablesMigration, restAgentProcessesMigration, restIdempotentResponsesMigration, intakeInFlightMigration, mcpSessionLifetimeMigration];
