export { IntakeModule, type IntakeModuleOptions, intakeMigrations } from './intake.module';
export { intakeEntities } from './intake.entities';
export { type IntakeEnv, checkIntakeEnv, intakeEnvShape } from './intake.config';
export type { AgentAnswer } from './answer/agent-answer';
export { McpTablesMigration } from './mcp/mcp-tables.migration';
export { RestAgentProcessesMigration } from './rest/agent-processes.migration';
export { RestIdempotentResponsesMigration } from './rest/idempotent-responses.migration';
