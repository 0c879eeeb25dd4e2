import { type Event, type EventEnvelope } from '@onceport/contracts';
import type { WrongExpectedVersionError } from '../errors';
import type { EventStore } from '../event-store.port';
import { type ClientPool, type Queryable, inTransaction } from '../queryable';
import { retryOnConflict } from './conflict-retry';
import { type EventCause, eventMetadata, toNewEvent } from './event-cause';
import { loadStream } from './load-stream';
import type { ExecutionStream } from './streams/execution-stream';
import type { IdempotencyKeyStream } from './streams/idempotency-key-stream';
import type { IntentStream } from './streams/intent-stream';
import type { SessionStream } from './streams/session-stream';
import type { VaultStream } from './streams/vault-stream';
import {
  type AnyStream,
  type CommandOf,
  type EventOf,
  type LoadedOf,
  type LoadedStream,
  type StateOf,
  emptyStream,
  foldOnto,
} from './stream-kind';

export interface HandleOptions<State, E extends Event> {
  /**
   * Append wherever the stream ends instead of at the loaded version: only for commands whose
   * events commute with anything else (a retry attaching), so a herd of them doesn't fight.
   */
  readonly appendAnywhere?: boolean;
  /**
   * The state the caller holds already (a stream it just read, or `emptyStream` of a new one): the
   * first attempt decides on it without reading again; a conflict reloads as usual.
   */
  readonly known?: LoadedStream<State, E>;
  /** Told of each lost race before the retry (to log it). */
  readonly onConflict?: (error: WrongExpectedVersionError, attempt: number) => void;
}

export interface HandledCommand<State, E extends Event> extends LoadedStream<State, E> {
  /** What this call appended; empty when the decider saw nothing new to record (a redelivery). */
  readonly appended: readonly EventEnvelope<E>[];
}

export interface CommandHandlerOptions {
  /** Lends the transaction a command writing several streams at once commits in (`transact`). */
  readonly pool?: ClientPool;
  readonly clock?: () => Date;
  /** How many folds of cached kinds (executions) are kept, least recently used out first. */
  readonly cacheSize?: number;
}

/** What a command function returns: the command to decide, or null to do nothing. */
export type CommandFor<S extends AnyStream> = (loaded: LoadedOf<S>, now: Date) => CommandOf<S> | null | Promise<CommandOf<S> | null>;
type HandleOptionsOf<S extends AnyStream> = HandleOptions<StateOf<S>, EventOf<S>>;
type HandledOf<S extends AnyStream> = HandledCommand<StateOf<S>, EventOf<S>>;

type Step =
  | { readonly streamId: string; readonly events: readonly EventEnvelope[]; readonly expectedVersion: number }
  | ((tx: Queryable) => Promise<void>);

/** One try of a `transact` command: its reads, and the appends (and other writes) it commits together. */
export class CommandAttempt {
  readonly steps: Step[] = [];
  private at: Date | undefined;

  constructor(
    private readonly handler: CommandHandler,
    private readonly clock: () => Date,
  ) {}

  /** The attempt's time, read from the clock the first time it is asked for (after the reads it decides on). */
  now(): Date {
    this.at ??= this.clock();
    return this.at;
  }

  load<S extends AnyStream>(stream: S): Promise<LoadedOf<S>> {
    return this.handler.load(stream);
  }

  /** Decides `command` on `loaded` and queues its events for the stream at `loaded`'s version; returns them (none: nothing queued). */
  decide<S extends AnyStream>(
    stream: S,
    loaded: LoadedOf<S>,
    command: CommandOf<S>,
    cause: EventCause,
  ): readonly EventEnvelope<EventOf<S>>[] {
    const events = this.handler.decided(stream, loaded.state, command, cause, this.now());
    if (events.length > 0) this.steps.push({ streamId: stream.id, events, expectedVersion: loaded.version });
    return events;
  }

  /** Runs `write` in the same transaction, after what was queued so far (e.g. a relational row the appends depend on). */
  alsoInTransaction(write: (tx: Queryable) => Promise<void>): void {
    this.steps.push(write);
  }
}

/**
 * The one way a command is handled, for every kind of stream: load the stream and fold it with its
 * decider, decide, build each event's envelope (ids, correlation, causation, trace context, schema
 * version), append with the version loaded, and on a conflict (another writer decided first) load
 * and decide again under one retry policy — so two services can never both act on one state.
 */
export class CommandHandler {
  private readonly folded = new Map<string, LoadedStream<unknown, Event>>();
  private readonly clock: () => Date;
  private readonly cacheSize: number;

  constructor(
    private readonly store: EventStore,
    private readonly options: CommandHandlerOptions = {},
  ) {
    this.clock = options.clock ?? (() => new Date());
    this.cacheSize = options.cacheSize ?? 2_000;
  }

  /** The stream folded now. Cached kinds read only the events after their last fold. */
  async load<S extends AnyStream>(stream: S): Promise<LoadedOf<S>> {
    if (!stream.kind.cached || this.cacheSize <= 0) return loadStream(this.store, stream);
    const cached = this.folded.get(stream.id) as LoadedOf<S> | undefined;
    const known = cached ?? emptyStream(stream);
    const stored = await this.store.readStream(stream.id, known.version + 1);
    if (stored.length === 0 && cached) return cached;
    const loaded = foldOnto(stream, known, stored);
    if (loaded.version > 0) this.remember(stream.id, loaded);
    return loaded;
  }

  /**
   * `commandFor` sees the current state and returns the command to decide, or null to do nothing.
   * It may read something else first (the dispatcher reads the vault): it is called again after
   * every conflict, so what it read is never older than the state it decides on.
   * Throws what the decider throws (an execution's `IllegalTransitionError`) when the command is not allowed.
   */
  // One signature per stream kind: a generic one would widen the literal types of the commands callers return.
  handle(
    stream: ExecutionStream,
    commandFor: CommandFor<ExecutionStream>,
    cause: EventCause,
    options?: HandleOptionsOf<ExecutionStream>,
  ): Promise<HandledOf<ExecutionStream>>;
  handle(
    stream: VaultStream,
    commandFor: CommandFor<VaultStream>,
    cause: EventCause,
    options?: HandleOptionsOf<VaultStream>,
  ): Promise<HandledOf<VaultStream>>;
  handle(
    stream: SessionStream,
    commandFor: CommandFor<SessionStream>,
    cause: EventCause,
    options?: HandleOptionsOf<SessionStream>,
  ): Promise<HandledOf<SessionStream>>;
  handle(
    stream: IntentStream,
    commandFor: CommandFor<IntentStream>,
    cause: EventCause,
    options?: HandleOptionsOf<IntentStream>,
  ): Promise<HandledOf<IntentStream>>;
  handle(
    stream: IdempotencyKeyStream,
    commandFor: CommandFor<IdempotencyKeyStream>,
    cause: EventCause,
    options?: HandleOptionsOf<IdempotencyKeyStream>,
  ): Promise<HandledOf<IdempotencyKeyStream>>;
  handle(
    stream: AnyStream,
    commandFor: CommandFor<AnyStream>,
    cause: EventCause,
    options: HandleOptionsOf<AnyStream> = {},
  ): Promise<HandledOf<AnyStream>> {
    return this.handleOn(stream, commandFor, cause, options);
  }

  private handleOn<S extends AnyStream>(
    stream: S,
    commandFor: CommandFor<S>,
    cause: EventCause,
    options: HandleOptionsOf<S>,
  ): Promise<HandledOf<S>> {
    return retryOnConflict(async (attempt) => {
      const loaded = attempt === 1 && options.known ? options.known : await this.load(stream);
      const now = this.clock();
      const command = await commandFor(loaded, now);
      if (command === null) return { ...loaded, appended: [] };
      const appended: EventEnvelope<EventOf<S>>[] = this.decided(stream, loaded.state, command, cause, now);
      if (appended.length === 0) return { ...loaded, appended: [] };
      const expectedVersion = options.appendAnywhere ? 'any' : loaded.version;
      const at = await this.store.append(stream.id, appended.map(toNewEvent), { expectedVersion });
      let state: StateOf<S> = loaded.state;
      for (const event of appended) state = stream.kind.decider.evolve(state, event) as StateOf<S>;
      return { state, version: at.nextExpectedVersion, events: [...loaded.events, ...appended], appended };
    }, options.onConflict);
  }

  /**
   * A command that reads several streams and appends to more than one of them atomically (intake's
   * intent claim with the execution's acceptance). `work` reads and decides through the attempt;
   * what it queued commits in one transaction, each append at the version its stream was loaded at,
   * and a conflict on any of them rolls all back and runs `work` again under the same policy.
   */
  transact<R>(
    work: (attempt: CommandAttempt) => Promise<R>,
    onConflict?: (error: WrongExpectedVersionError, attempt: number) => void,
  ): Promise<R> {
    return retryOnConflict(async () => {
      const attempt = new CommandAttempt(this, this.clock);
      const result = await work(attempt);
      await this.commit(attempt.steps);
      return result;
    }, onConflict);
  }

  /** @internal The decided events of `command`, each in its validated envelope. */
  decided<S extends AnyStream>(
    stream: S,
    state: StateOf<S>,
    command: CommandOf<S>,
    cause: EventCause,
    now: Date,
  ): EventEnvelope<EventOf<S>>[] {
    return stream.kind.decider
      .decide(command, state)
      .map((event) => stream.kind.write(event, eventMetadata(cause, stream.correlationId, now)));
  }

  private async commit(steps: readonly Step[]): Promise<void> {
    const [only] = steps;
    if (!only) return;
    // A single append commits alone: no transaction round trips on the hot path.
    if (steps.length === 1 && typeof only !== 'function') {
      await this.store.append(only.streamId, only.events.map(toNewEvent), { expectedVersion: only.expectedVersion });
      return;
    }
    const pool = this.options.pool;
    if (!pool) throw new Error('CommandHandler: a command writing several streams at once needs the pool its transaction runs in');
    await inTransaction(pool, async (tx) => {
      for (const step of steps) {
        if (typeof step === 'function') await step(tx);
        else await this.store.append(step.streamId, step.events.map(toNewEvent), { expectedVersion: step.expectedVersion, tx });
      }
    });
  }

  private remember(streamId: string, loaded: LoadedStream<unknown, Event>): void {
    const current = this.folded.get(streamId);
    // Concurrent loads may finish out of order: never replace a fold with an older one.
    if (current && current.version > loaded.version) return;
    this.folded.delete(streamId);
    this.folded.set(streamId, loaded);
    if (this.folded.size > this.cacheSize) this.folded.delete(this.folded.keys().next().value as string);
  }
}
