export { MIGRATION_TABLE, type OrmSettings, openOrm, ormConfig } from './orm-config';
export { type MigrationOptions, runMigrations } from './migrator';
export { MigrationSetupError, SERVICE_ROLE_PATTERN, grantServiceRole } from './service-role-grants';
