import { MIGRATION_TABLE } from './orm-config';

/** Runs one statement in the migration's transaction (`?` placeholders) and answers its rows. */
export type RunSql = (sql: string, params: unknown[]) => Promise<unknown[]>;

/** A PostgreSQL role name Onceport will grant to: plain lower-case identifiers only, never quoted input. */
export const SERVICE_ROLE_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** The database refused something a migration or its grants needed, with what to do about it. */
export class MigrationSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationSetupError';
  }
}

/**
 * What the services' role may do, applied by the owner after every migration run (GRANT and REVOKE
 * are idempotent, and tables added by later migrations are covered the next time):
 * - `onceport.events`: SELECT and INSERT only. Not the owner, so no ALTER TABLE (no DISABLE TRIGGER),
 *   no DROP, no TRUNCATE; no UPDATE or DELETE grant either, so the append-only guarantee no longer
 *   rests on a trigger the services could switch off.
 * - the migration records (`onceport.mikro_orm_migrations`, and the old runner's `schema_migrations`): SELECT
 *   (a service checks the schema is complete at start).
 * - every other table of the schema (checkpoints, inbox, read models, results, intake's and the
 *   reconciler's tables): SELECT, INSERT, UPDATE, DELETE — derived or working state, rebuildable
 *   from the events; still no TRUNCATE, no DDL.
 */
export async function grantServiceRole(execute: RunSql, role: string): Promise<void> {
  if (!SERVICE_ROLE_PATTERN.test(role))
    throw new MigrationSetupError(`service role ${JSON.stringify(role)}: expected a lower-case PostgreSQL identifier (a-z, 0-9, _)`);
  const found = (await execute('SELECT rolsuper, rolname = current_user AS is_me FROM pg_roles WHERE rolname = ?', [role])) as {
    rolsuper: boolean;
    is_me: boolean;
  }[];
  const row = found[0];
  if (!row)
    throw new MigrationSetupError(
      `service role "${role}" does not exist: create it first (CREATE ROLE ${role} LOGIN PASSWORD '…'), then migrate again`,
    );
  if (row.is_me)
    throw new MigrationSetupError(
      `service role "${role}" is the role running the migrations (the owner): give the services a role of their own`,
    );
  if (row.rolsuper)
    throw new MigrationSetupError(`service role "${role}" is a superuser, which no grant can restrict: give the services an ordinary role`);
  await execute(
    `
GRANT USAGE ON SCHEMA onceport TO ${role};
REVOKE ALL ON ALL TABLES IN SCHEMA onceport FROM ${role};
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA onceport TO ${role};
REVOKE UPDATE, DELETE ON onceport.events FROM ${role};
REVOKE INSERT, UPDATE, DELETE ON ${MIGRATION_TABLE} FROM ${role};
DO $legacy$ BEGIN
  IF to_regclass('onceport.schema_migrations') IS NOT NULL THEN
    REVOKE INSERT, UPDATE, DELETE ON onceport.schema_migrations FROM ${role};
  END IF;
END $legacy$;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA onceport TO ${role};
`,
    [],
  );
}
