import { setTimeout as sleep } from 'node:timers/promises';
import { type ExecutionEventEnvelope, executionStreamId } from '@onceport/contracts';
import { type ExecutionCommand, type ExecutionState, IllegalTransitionError, decide, evolve, initialState } from '@onceport/domain';
import { type EventStore, WrongExpectedVersionError } from '@onceport/event-store';
import { type CausationContext, fromStoredEvent, toNewEvent } from './envelopes';

export interface LoadedExecution {
  readonly state: ExecutionState;
  /** The stream version the state was folded at: the expected version of the next append. */
  readonly version: number;
  readonly events: readonly ExecutionEventEnvelope[];
}

export interface HandleOptions {
  /**
   * Append wherever the stream ends instead of at the loaded version: only for commands whose
   * events commute with anything else (a retry attaching), so a herd of them doesn't fight.
   */
  readonly appendAnywhere?: boolean;
}

export interface HandledCommand extends LoadedExecution {
  /** What this call appended; empty when the decider saw nothing new to record (a redelivery). */
  readonly appended: readonly ExecutionEventEnvelope[];
}

/** How many times a conflicting writer makes us reload and decide again before giving up. */
const CONFLICT_RETRIES = 50;

/**
 * Loads an execution, decides, and appends with the version it loaded. A conflict means another
 * service decided first: reload and decide again against the newer state, so two services can
 * never both act on one state (two dispatchers can't both start a dispatch).
 */
export class ExecutionRepository {
  /**
   * Executions folded lately, newest use last. Committed events never change and a stream's visible
   * versions have no gaps, so a cached fold plus the events after its version is the whole stream:
   * a load reads only what is new. (A thousand callers attached to one execution each re-read it;
   * folding the whole stream every time made that herd quadratic.)
   */
  private readonly folded = new Map<string, LoadedExecution>();

  constructor(
    private readonly store: EventStore,
    private readonly clock: () => Date = () => new Date(),
    private readonly cacheSize = 2_000,
  ) {}

  async load(executionId: string): Promise<LoadedExecution> {
    const cached = this.folded.get(executionId);
    const known = cached ?? { state: initialState(), version: 0, events: [] };
    const stored = await this.store.readStream(executionStreamId(executionId), known.version + 1);
    if (stored.length === 0 && cached) return cached;
    const newer = stored.map(fromStoredEvent);
    let state: ExecutionState = known.state;
    for (const event of newer) state = evolve(state, event);
    const loaded: LoadedExecution = { state, version: known.version + stored.length, events: newer.length === 0 ? known.events : [...known.events, ...newer] };
    if (loaded.version > 0) this.remember(executionId, loaded);
    return loaded;
  }

  private remember(executionId: string, loaded: LoadedExecution): void {
    if (this.cacheSize <= 0) return;
    const current = this.folded.get(executionId);
    // Concurrent loads may finish out of order: never replace a fold with an older one.
    if (current && current.version > loaded.version) return;
    this.folded.delete(executionId);
    this.folded.set(executionId, loaded);
    if (this.folded.size > this.cacheSize) this.folded.delete(this.folded.keys().next().value as string);
  }

  /**
   * `commandFor` sees the current state and returns the command to decide, or null to do nothing.
   * It may read something else first (the dispatcher reads the vault): it is called again after
   * every conflict, so what it read is never older than the state it decides on.
   * Throws the decider's {@link IllegalTransitionError} when the command is not allowed.
   */
  async handle(
    executionId: string,
    commandFor: (loaded: LoadedExecution, now: Date) => ExecutionCommand | null | Promise<ExecutionCommand | null>,
    context: CausationContext,
    options: HandleOptions = {},
  ): Promise<HandledCommand> {
    for (let attempt = 1; ; attempt++) {
      const loaded = await this.load(executionId);
      const now = this.clock();
      const command = await commandFor(loaded, now);
      if (!command) return { ...loaded, appended: [] };
      const decided = decide(command, loaded.state);
      if (decided.length === 0) return { ...loaded, appended: [] };
      const newEvents = decided.map((event) => toNewEvent(executionId, event, context, now));
      let loadedVersionAfter = loaded.version + newEvents.length;
      try {
        const expectedVersion = options.appendAnywhere ? 'any' : loaded.version;
        const appendedAt = await this.store.append(executionStreamId(executionId), newEvents, { expectedVersion });
        loadedVersionAfter = appendedAt.nextExpectedVersion;
      } catch (error) {
        if (error instanceof WrongExpectedVersionError && attempt < CONFLICT_RETRIES) {
          // Jitter spreads a herd of writers (e.g. many retries attaching at once) over time.
          await sleep(Math.random() * Math.min(2 ** attempt, 50));
          continue;
        }
        throw error;
      }
      const appended = newEvents.map((e, i) => ({ ...decided[i], schemaVersion: e.schemaVersion, metadata: e.metadata }) as unknown as ExecutionEventEnvelope);
      let state = loaded.state;
      for (const event of appended) state = evolve(state, event);
      return { state, version: loadedVersionAfter, events: [...loaded.events, ...appended], appended };
    }
  }
}

export { IllegalTransitionError };
