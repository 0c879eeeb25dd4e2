import type { StoredEvent } from '../event';
import type { SchemaStep } from '../migrations';
import type { Queryable } from '../queryable';

/**
 * A read model kept from events. `apply` runs in the same transaction as the checkpoint, so each
 * event is applied exactly once; `reset` empties the model for a rebuild from position zero.
 */
export interface Projection {
  readonly name: string;
  readonly migrations: readonly SchemaStep[];
  apply(events: readonly StoredEvent[], tx: Queryable): Promise<void>;
  reset(tx: Queryable): Promise<void>;
}
