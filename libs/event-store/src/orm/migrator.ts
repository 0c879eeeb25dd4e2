import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { SchemaStep } from '../migrations/schema-step';
import { lockMigrations, prepareMigrationRecord, recordedStepIds } from './migration-record';
import { openOrm } from './orm-config';
import { MigrationSetupError, grantServiceRole } from './service-role-grants';

export interface MigrationOptions {
  /** The role the services connect as; granted exactly what they need after the steps (`grantServiceRole`). */
  readonly serviceRole?: string | null;
}

/**
 * Applies, with MikroORM's migrator, the steps not yet recorded, all in one transaction under a
 * transaction-scoped advisory lock, so replicas that start together apply each step exactly once;
 * running it again is a no-op. Returns the ids it applied.
 *
 * When every step is recorded already (and no grants are asked for) it only reads: a service
 * connected as the restricted service role, which may not create anything, starts fine on a schema
 * the owner migrated. A step still missing there is an error saying how to apply it.
 */
export async function runMigrations(databaseUrl: string, steps: readonly SchemaStep[], options: MigrationOptions = {}): Promise<string[]> {
  assertOrdered(steps);
  // Two connections: MikroORM looks for its table outside the transaction the steps run in.
  const orm = await openOrm({ databaseUrl, steps, poolSize: 2 });
  try {
    const em = orm.em.fork();
    if (!options.serviceRole && (await missingIds(em, steps)).length === 0) return [];
    try {
      await prepareMigrationRecord(em);
      return await applyMissing(orm, em, options.serviceRole ?? null);
    } catch (error) {
      if (sqlStateOf(error) !== '42501') throw originalOf(error);
      const missing = await missingIds(em, steps);
      throw new MigrationSetupError(
        `the schema needs migrations ${missing.join(', ') || '(unknown)'} and this database role may not apply them (${messageOf(error)}): ` +
          'run the migrate-only step (ONCEPORT_MIGRATE_ONLY=true) as the owner role (ONCEPORT_MIGRATION_DATABASE_URL), then start the service again',
      );
    }
  } finally {
    await orm.close();
  }
}

async function missingIds(em: EntityManager, steps: readonly SchemaStep[]): Promise<string[]> {
  const done = await recordedStepIds(em);
  return steps.filter((step) => !done.has(step.id)).map((step) => step.id);
}

async function applyMissing(orm: MikroORM, em: EntityManager, serviceRole: string | null): Promise<string[]> {
  return em.getConnection().transactional(async (trx) => {
    await lockMigrations(em, trx);
    const applied = await orm.getMigrator().up({ transaction: trx });
    if (serviceRole) await grantServiceRole((sql, params) => em.getConnection().execute(sql, params, 'all', trx), serviceRole);
    return applied.map((migration) => migration.name);
  });
}

function assertOrdered(steps: readonly SchemaStep[]): void {
  const ids = steps.map((step) => step.id);
  const sorted = [...ids].sort();
  if (ids.join('\n') !== sorted.join('\n') || new Set(ids).size !== ids.length) {
    throw new Error(`migrations must have unique ids in ascending order; got ${ids.join(', ')}`);
  }
}

/** The migrator wraps a failing step's error (umzug's MigrationError); callers see the database's own. */
function originalOf(error: unknown): unknown {
  let current = error;
  while (current instanceof Error && current.name === 'MigrationError' && current.cause) current = current.cause;
  return current;
}

function sqlStateOf(error: unknown): string | undefined {
  const code = (originalOf(error) as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(error: unknown): string {
  const original = originalOf(error);
  return original instanceof Error ? original.message : String(original);
}
