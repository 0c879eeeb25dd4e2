export { IntakeModule, intakeMigrations } from './intake.module';
export { type IntakeEnv, checkIntakeEnv, intakeEnvShape } from './intake.config';
export type { AgentAnswer } from './answer/agent-answer';
export { mcpTablesMigration } from './mcp/mcp-tables.migration';
export { restAgentProcessesMigration } from './rest/agent-processes.migration';
export { restIdempotentResponsesMigration } from './rest/idempotent-responses.migration';
