import type { AppendGuard, EventStore, StreamAppend } from '../event-store.port';
import { NextBatch } from '../next-batch';
import { OneStreamTwiceError, inStreamOrder, refusedByTheStore } from './grouped-appends';

/** The most commands one guarded statement carries: their guards' rows may hold result bodies. */
const MAX_COMMANDS_PER_STATEMENT = 32;

interface GuardedAppend {
  readonly appends: readonly StreamAppend[];
  readonly guard: AppendGuard;
}

/** A merged guard that returned no row: which member's would not have is found by sending the group again in halves. */
class GroupGuardRefusedError extends Error {
  constructor() {
    super('GroupedGuardedAppends: the group’s guard refused');
  }
}

/**
 * Group commit for commands whose appends commit with a guard (the dispatcher's outcome with the
 * answer's bytes): while one statement is in flight, the commands whose guards are of the same
 * mergeable kind go together in the next one — one merged guard, every command's appends, each at
 * its own expected version. A lone command, or a guard that cannot merge, goes at once as before. A
 * group refused for one member (a stream moved on, a stream named twice, the guard) is sent again
 * in halves until the refused one goes alone, so each caller hears only its own outcome.
 */
export class GroupedGuardedAppends {
  private readonly batches = new Map<string, NextBatch<GuardedAppend, boolean>>();

  constructor(private readonly store: Pick<EventStore, 'appendTogether'>) {}

  /** Resolves false when the command's guard refused (nothing of it was written). */
  append(appends: readonly StreamAppend[], guard: AppendGuard): Promise<boolean> {
    const kind = guard.mergeable?.kind;
    if (kind === undefined) return this.store.appendTogether(appends, guard);
    let batches = this.batches.get(kind);
    if (!batches) {
      batches = new NextBatch((group) => this.appendAll(group), MAX_COMMANDS_PER_STATEMENT, isolatable);
      this.batches.set(kind, batches);
    }
    return batches.submit({ appends, guard });
  }

  private async appendAll(group: readonly GuardedAppend[]): Promise<boolean[]> {
    const [first] = group;
    if (!first) return [];
    if (group.length === 1 || !first.guard.mergeable) return [await this.store.appendTogether(first.appends, first.guard)];
    const appends = group.flatMap((command) => command.appends);
    if (new Set(appends.map((append) => append.streamId)).size !== appends.length) throw new OneStreamTwiceError();
    const guard = first.guard.mergeable.merge(group.map((command) => command.guard));
    if (!(await this.store.appendTogether(inStreamOrder(appends), guard))) throw new GroupGuardRefusedError();
    return group.map(() => true);
  }
}

function isolatable(error: unknown): boolean {
  return error instanceof GroupGuardRefusedError || refusedByTheStore(error);
}
