import type { EntitySchema } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, type Options, defineConfig } from '@mikro-orm/postgresql';
import type { SchemaStep } from '../migrations/schema-step';

/** Where the migrator records applied steps (MikroORM's own table shape, in Onceport's schema). */
export const MIGRATION_TABLE = 'onceport.mikro_orm_migrations';

export interface OrmSettings {
  readonly databaseUrl: string;
  /** The relational side's entities (intake's tables, read models, reconcile checks); none for a migrate-only run. */
  readonly entities?: readonly EntitySchema[];
  /** The steps the migrator knows, in order. */
  readonly steps?: readonly SchemaStep[];
  readonly poolSize?: number;
  /** Shown in `pg_stat_activity` (`onceport-intake-orm`), so an operator can tell whose connections they are. */
  readonly applicationName?: string;
}

/**
 * The one MikroORM configuration: PostgreSQL, entities given as schemas (no decorators, no folder
 * scanning), the migrator with an explicit step list (no files, no snapshots written beside the
 * code), and no global EntityManager — every unit of work forks its own.
 */
export function ormConfig(settings: OrmSettings): Options {
  return defineConfig({
    clientUrl: settings.databaseUrl,
    entities: [...(settings.entities ?? [])],
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: {
      tableName: MIGRATION_TABLE,
      migrationsList: (settings.steps ?? []).map((step) => ({ name: step.id, class: step })),
      snapshot: false,
      silent: true,
      transactional: true,
      allOrNothing: true,
    },
    pool: { min: 0, max: settings.poolSize ?? 10 },
    ...(settings.applicationName ? { driverOptions: { connection: { application_name: settings.applicationName } } } : {}),
    allowGlobalContext: false,
    debug: false,
  });
}

/** Connects an ORM for `settings`; close it with `orm.close()`. */
export function openOrm(settings: OrmSettings): Promise<MikroORM> {
  return MikroORM.init(ormConfig(settings));
}
