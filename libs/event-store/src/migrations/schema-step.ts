import { Migration } from '@mikro-orm/migrations';

/**
 * One schema step: a MikroORM migration class whose static `id` orders the steps and is what the
 * migrator records once applied (`onceport.mikro_orm_migrations.name`). Steps only go forward.
 */
export interface SchemaStep {
  readonly id: string;
  new (...args: ConstructorParameters<typeof Migration>): Migration;
}

/** A step from plain SQL, for steps a test defines inline; the library's own steps are classes of their own. */
export function sqlMigration(id: string, sql: string): SchemaStep {
  return class extends Migration {
    static readonly id = id;
    override up(): void {
      this.addSql(sql);
    }
  };
}
