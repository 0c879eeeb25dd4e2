import { EntitySchema, type Opt } from '@mikro-orm/core';

/** A row of `onceport.mcp_sessions` (migrations 200 and 210). */
export interface McpSessionRow {
  sessionId: string;
  actor: string;
  createdAt: Opt<Date>;
  lastSeenAt: Opt<Date>;
  endedAt: Date | null;
}

export const McpSessionEntity = new EntitySchema<McpSessionRow>({
  name: 'McpSession',
  schema: 'onceport',
  tableName: 'mcp_sessions',
  properties: {
    sessionId: { type: 'text', primary: true },
    actor: { type: 'text' },
    createdAt: { type: 'Date', columnType: 'timestamptz', defaultRaw: 'now()' },
    lastSeenAt: { type: 'Date', columnType: 'timestamptz', defaultRaw: 'now()' },
    endedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
  },
});

/** A row of `onceport.mcp_stream_events`: one SSE message kept for `Last-Event-ID` replay. */
export interface McpStreamEventRow {
  eventId: string;
  streamId: string;
  sessionId: string;
  message: unknown;
  createdAt: Opt<Date>;
}

export const McpStreamEventEntity = new EntitySchema<McpStreamEventRow>({
  name: 'McpStreamEvent',
  schema: 'onceport',
  tableName: 'mcp_stream_events',
  properties: {
    eventId: { type: 'bigint', primary: true, autoincrement: true },
    streamId: { type: 'text' },
    sessionId: { type: 'text' },
    message: { type: 'json' },
    createdAt: { type: 'Date', columnType: 'timestamptz', defaultRaw: 'now()' },
  },
});
