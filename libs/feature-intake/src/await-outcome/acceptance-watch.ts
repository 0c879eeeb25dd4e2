import type { ExecutionWatcher } from './execution-watcher';

type Change = ReturnType<ExecutionWatcher['nextChange']>;

/**
 * The wait for a new execution's first change, set up before its acceptance commits. Nothing can
 * happen to an execution before it exists, so a call that created one knows its state (accepted,
 * not answerable) and needs no read of it: it waits for the first change from the start. Set up
 * after the commit instead, a change that came in between would be missed; hence before.
 *
 * The accepting transaction may run more than once (a lost race on the intent claim), each try with
 * an execution id of its own: each `watch` replaces the one before.
 */
export class AcceptanceWatch {
  private current: { readonly executionId: string; readonly change: Change } | null = null;

  constructor(
    private readonly watcher: ExecutionWatcher,
    readonly deadline: number,
  ) {}

  /** Watches the execution this try is about to accept, instead of the one an earlier try would have. */
  watch(executionId: string): void {
    this.current?.change.cancel();
    this.current = { executionId, change: this.watcher.nextChange(executionId, this.deadline) };
  }

  /** The watch on `executionId` if that is the one set up (the caller now owns it); any other is cancelled. */
  take(executionId: string): Change | null {
    const current = this.current;
    this.current = null;
    if (current?.executionId === executionId) return current.change;
    current?.change.cancel();
    return null;
  }

  /** The call ended without an execution to wait for. */
  cancel(): void {
    this.current?.change.cancel();
    this.current = null;
  }
}
