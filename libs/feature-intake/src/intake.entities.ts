import type { EntitySchema } from '@mikro-orm/core';
import { McpSessionEntity, McpStreamEventEntity } from './mcp/mcp-session.entity';
import { RestAgentProcessEntity } from './rest/agent-process.entity';
import { RestIdempotentResponseEntity } from './rest/idempotent-response.entity';

/** Intake's relational tables as MikroORM entities (their schema comes from `intakeMigrations`). */
export const intakeEntities: readonly EntitySchema[] = [
  McpSessionEntity,
  McpStreamEventEntity,
  RestAgentProcessEntity,
  RestIdempotentResponseEntity,
] as EntitySchema[];
