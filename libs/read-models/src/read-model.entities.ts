import type { EntitySchema } from '@mikro-orm/core';
import { ExecutionMatchEntity } from './execution-matches/execution-match.entity';
import { ReconcileCheckEntity } from './reconcile-checks/reconcile-check.entity';

/** The read models' tables as MikroORM entities, for the services that read them (and the reconciler's checks). */
export const readModelEntities: readonly EntitySchema[] = [ExecutionMatchEntity, ReconcileCheckEntity] as EntitySchema[];
