import type { SchemaStep } from '@onceport/event-store';
import { McpSessionLifetimeMigration } from './mcp/mcp-session-lifetime.migration';
import { McpStreamEventIdBlocksMigration } from './mcp/mcp-stream-event-id-blocks.migration';
import { McpTablesMigration } from './mcp/mcp-tables.migration';
import { RestAgentProcessesMigration } from './rest/agent-processes.migration';
import { RestIdempotentResponsesMigration } from './rest/idempotent-responses.migration';
import { IntakeInFlightMigration } from './limits/in-flight.migration';
import { IntakeInFlightSlotsMigration } from './limits/in-flight-slots.migration';

/** Intake's own tables (MCP sessions and stream events, issued REST agent processes, kept Idempotency-Key responses). */
export const intakeMigrations: readonly SchemaStep[] = [
  McpTablesMigration,
  RestAgentProcessesMigration,
  RestIdempotentResponsesMigration,
  IntakeInFlightMigration,
  McpSessionLifetimeMigration,
  IntakeInFlightSlotsMigration,
  McpStreamEventIdBlocksMigration,
];
