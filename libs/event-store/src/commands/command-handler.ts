import type { CampaignStream } from './streams/campaign-stream';
import type { RunStream } from './streams/run-stream';
import { type Event, type EventEnvelope } from '@onceport/contracts';
import { AppendGuardRefusedError, WrongExpectedVersionError } from '../errors';
import type { NewEvent, StoredEvent } from '../event';
import type { AppendGuard, EventStore, StreamAppend } from '../event-store.port';
import { type ClientPool, type Queryable, inTransaction } from '../queryable';
import { CommutingAppends, type CommutingStreamAccess } from './commuting-appends';
import { retryOnConflict } from './conflict-retry';
import { GroupedAppends } from './grouped-appends';
import { GroupedGuardedAppends } from './grouped-guarded-appends';
import { GroupedReads } from './grouped-reads';
import { type EventCause, eventMetadata, toNewEvent } from './event-cause';
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
   * events commute with anything else (a retry attaching), so a herd of them doesn't fight. Such
   * commands for one stream share commits (`CommutingAppends`); `known` does not apply to them.
   */
  readonly appendAnywhere?: boolean;
  /**
   * The state the caller holds already (a stream it just read, or `emptyStream` of a new one): the
   * first attempt decides on it without reading again; a conflict reloads as usual.
   */
  readonly known?: LoadedStream<State, E>;
  /**
   * With `appendAnywhere`, for a caller that just read the stream through this handler, or was shown
   * it (intake recording the delivery of the answer it built from that fold): a flush of this command
   * alone decides on the handler's newest fold of the stream, without reading it again. Events that
   * committed since are appended past, as for any commuting append; a later try reads.
   */
  readonly onNewestFold?: boolean;
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

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** One stream's reads: the one running (implied) and the one queued behind it for who arrived meanwhile. */
interface StreamReads {
  queued: Deferred<unknown> | null;
}

interface AppendStep {
  readonly streamId: string;
  readonly events: readonly EventEnvelope[];
  readonly expectedVersion: number;
}

type Step = AppendStep | ((tx: Queryable) => Promise<void>);

/** One try of a `transact` command: its reads, and the appends (and other writes) it commits together. */
export class CommandAttempt {
  readonly steps: Step[] = [];
  /** See {@link onlyIf}. */
  guard: AppendGuard | undefined;
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

  /**
   * The appends commit only if `guard` (a statement run first, in the same statement as the appends)
   * returns a row; if it does not, nothing is written and `transact` throws `AppendGuardRefusedError`.
   * The cheap way to make a relational row and the appends one commit; not with `alsoInTransaction`.
   */
  onlyIf(guard: AppendGuard): void {
    this.guard = guard;
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
  private readonly commuting = new CommutingAppends();
  private readonly grouped: GroupedAppends;
  private readonly groupedReads: GroupedReads;
  private readonly guardedGroups: GroupedGuardedAppends;
  /** Streams being read now, each with the read queued behind the running one. */
  private readonly reads = new Map<string, StreamReads>();

  constructor(
    private readonly store: EventStore,
    private readonly options: CommandHandlerOptions = {},
  ) {
    this.clock = options.clock ?? (() => new Date());
    this.cacheSize = options.cacheSize ?? 2_000;
    this.grouped = new GroupedAppends(store);
    this.groupedReads = new GroupedReads(store);
    this.guardedGroups = new GroupedGuardedAppends(store);
  }

  /**
   * The stream folded now. Cached kinds read only the events after their last fold, and concurrent
   * loads of one stream share reads: a load that arrives while a read is running waits for the next
   * read (one for everyone who arrived meanwhile), so it still sees every event committed before it
   * was asked — and a herd of 1,000 waiters costs two reads, not 1,000 reads of the same new events.
   */
  load<S extends AnyStream>(stream: S): Promise<LoadedOf<S>> {
    if (!stream.kind.cached || this.cacheSize <= 0) return this.readWhole(stream);
    const reads = this.reads.get(stream.id);
    if (!reads) {
      const started: StreamReads = { queued: null };
      this.reads.set(stream.id, started);
      return this.runRead(stream, started) as Promise<LoadedOf<S>>;
    }
    reads.queued ??= deferred();
    return reads.queued.promise as Promise<LoadedOf<S>>;
  }

  /**
   * Several streams folded now, in one read: for a command that decides on streams it knows before
   * reading any of them (authorization: the execution, the vault, the actor's session). Each sees
   * every event committed before the call; cached kinds read only what is new, as in `load`.
   */
  async loadAll<const S extends readonly AnyStream[]>(streams: S): Promise<{ -readonly [K in keyof S]: LoadedOf<S[K]> }> {
    const known = streams.map((stream) => this.knownFold(stream));
    const stored = await this.groupedReads.read(
      streams.map((stream, i) => ({ streamId: stream.id, fromVersion: (known[i]?.version ?? 0) + 1 })),
    );
    return streams.map((stream, i) => {
      const before = known[i] ?? emptyStream(stream);
      const loaded = foldOnto(stream, before, stored.get(stream.id) ?? []);
      if (loaded !== before && this.caches(stream)) this.remember(stream.id, loaded);
      return loaded;
    }) as { -readonly [K in keyof S]: LoadedOf<S[K]> };
  }

  /**
   * Events of `stream` read from the store's tail (committed, in commit order): folded onto the
   * cached fold where they continue it exactly, or from nothing where they begin the stream, so a
   * process that follows the tail holds a stream's fold without reading it again. Anything else (a
   * gap, events folded already, a kind not cached) changes nothing: the next load reads what is missing.
   */
  observe<S extends AnyStream>(stream: S, stored: readonly StoredEvent[]): void {
    if (!this.caches(stream)) return;
    const known = this.knownFold(stream);
    const fresh = stored.filter((event) => event.streamVersion > known.version);
    if (fresh.length === 0 || fresh.some((event, i) => event.streamVersion !== known.version + 1 + i)) return;
    let folded: LoadedOf<S>;
    try {
      folded = foldOnto(stream, known, fresh);
    } catch {
      return; // an event that does not fold is the next load's to report, to the caller who asked
    }
    this.remember(stream.id, folded);
  }

  /** The fold of `stream` this handler holds now, read or observed, without reading (null: none). */
  cachedFold<S extends AnyStream>(stream: S): LoadedOf<S> | null {
    return this.caches(stream) ? ((this.folded.get(stream.id) as LoadedOf<S> | undefined) ?? null) : null;
  }

  private caches(stream: AnyStream): boolean {
    return stream.kind.cached && this.cacheSize > 0;
  }

  /** The fold to read on from: the cached one of a cached kind, else none yet. */
  private knownFold<S extends AnyStream>(stream: S): LoadedOf<S> {
    return ((this.caches(stream) ? this.folded.get(stream.id) : undefined) as LoadedOf<S> | undefined) ?? emptyStream(stream);
  }

  /** Reads once; then the read everyone queued meanwhile, if anyone did. */
  private runRead<S extends AnyStream>(stream: S, reads: StreamReads): Promise<LoadedOf<S>> {
    const read = this.readNew(stream);
    void read
      .catch(() => undefined)
      .then(() => {
        const next = reads.queued;
        if (!next) {
          this.reads.delete(stream.id);
          return;
        }
        reads.queued = null;
        this.runRead(stream, reads).then(next.resolve, next.reject);
      });
    return read;
  }

  /** A kind not cached, read from its start (with whatever other reads arrive meanwhile). */
  private async readWhole<S extends AnyStream>(stream: S): Promise<LoadedOf<S>> {
    const stored = await this.groupedReads.read([{ streamId: stream.id, fromVersion: 1 }]);
    return foldOnto(stream, emptyStream(stream), stored.get(stream.id) ?? []);
  }

  /** The cached fold and the events after it. */
  private async readNew<S extends AnyStream>(stream: S): Promise<LoadedOf<S>> {
    const cached = this.folded.get(stream.id) as LoadedOf<S> | undefined;
    const known = cached ?? emptyStream(stream);
    const fromVersion = known.version + 1;
    const stored = (await this.groupedReads.read([{ streamId: stream.id, fromVersion }])).get(stream.id) ?? [];
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
    stream: RunStream,
    commandFor: CommandFor<RunStream>,
    cause: EventCause,
    options?: HandleOptionsOf<RunStream>,
  ): Promise<HandledOf<RunStream>>;
  handle(
    stream: CampaignStream,
    commandFor: CommandFor<CampaignStream>,
    cause: EventCause,
    options?: HandleOptionsOf<CampaignStream>,
  ): Promise<HandledOf<CampaignStream>>;
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
    if (options.appendAnywhere) return this.handleCommuting(stream, commandFor, cause, options.onNewestFold === true);
    return retryOnConflict(async (attempt) => {
      const loaded = attempt === 1 && options.known ? options.known : await this.load(stream);
      const now = this.clock();
      const command = await commandFor(loaded, now);
      if (command === null) return { ...loaded, appended: [] };
      const appended: EventEnvelope<EventOf<S>>[] = this.decided(stream, loaded.state, command, cause, now);
      if (appended.length === 0) return { ...loaded, appended: [] };
      // At the loaded version, with the other streams' appends that arrive while one is in flight.
      const version = await this.grouped.append(stream.id, appended.map(toNewEvent), loaded.version);
      let state: StateOf<S> = loaded.state;
      for (const event of appended) state = stream.kind.decider.evolve(state, event) as StateOf<S>;
      return { state, version, events: [...loaded.events, ...appended], appended };
    }, options.onConflict);
  }

  /** Queues the command with the others for its stream; they are decided in turn and appended in one commit. */
  private handleCommuting<S extends AnyStream>(
    stream: S,
    commandFor: CommandFor<S>,
    cause: EventCause,
    onNewestFold: boolean,
  ): Promise<HandledOf<S>> {
    // Only the first load of the first flush: that flush holds this command alone (see CommutingAppends).
    let foldFirst = onNewestFold && this.caches(stream);
    const access: CommutingStreamAccess<StateOf<S>, EventOf<S>> = {
      load: () => {
        const newest = foldFirst ? (this.folded.get(stream.id) as LoadedOf<S> | undefined) : undefined;
        foldFirst = false;
        return newest ? Promise.resolve(newest) : this.load(stream);
      },
      evolve: (state, event) => stream.kind.decider.evolve(state, event) as StateOf<S>,
      appendAtEnd: async (events, loadedVersion) => {
        const stored = events.map(toNewEvent);
        try {
          // Where the stream most likely still ends: one statement, no transaction, no stream lock (on the
          // store's pool: a failed insert aborts nothing else, which inside a caller's transaction it would),
          // shared with the other streams' commuting appends that arrive while one is in flight.
          return await this.grouped.append(stream.id, stored, loadedVersion);
        } catch (error) {
          if (!(error instanceof WrongExpectedVersionError)) throw error;
          // Someone appended since the load: these events commute, so at the end, in turn with the others.
          return (await this.store.append(stream.id, stored, { expectedVersion: 'any' })).nextExpectedVersion;
        }
      },
      now: this.clock,
    };
    return new Promise<HandledOf<S>>((resolve, reject) => {
      this.commuting.enqueue(stream.id, access, {
        decide: async (loaded, now) => {
          const command = await commandFor(loaded, now);
          return command === null ? [] : this.decided(stream, loaded.state, command, cause, now);
        },
        resolve,
        reject,
      });
    });
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
      await this.commit(attempt.steps, attempt.guard);
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

  private async commit(steps: readonly Step[], guard: AppendGuard | undefined): Promise<void> {
    const appendSteps = steps.filter((step): step is AppendStep => typeof step !== 'function');
    // Appends alone commit in one statement: no transaction round trips on the hot path.
    if (appendSteps.length === steps.length) {
      const appends = appendsByStream(appendSteps);
      if (appends.length === 0 && !guard) return;
      if (appends.length === 0) throw new Error('CommandHandler: a guard without appends guards nothing');
      // A guard of a mergeable kind shares its statement with the commands that arrive meanwhile.
      const written = guard ? await this.guardedGroups.append(appends, guard) : await this.store.appendTogether(appends);
      if (!written) throw new AppendGuardRefusedError();
      return;
    }
    if (guard)
      throw new Error('CommandHandler: a guarded command writes nothing but its appends (use alsoInTransaction or onlyIf, not both)');
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

/**
 * One append per stream: a command may decide on a stream more than once (asked, then granted),
 * each time on the version the one before it left.
 */
function appendsByStream(steps: readonly AppendStep[]): StreamAppend[] {
  const byStream = new Map<string, { streamId: string; events: NewEvent[]; expectedVersion: number }>();
  for (const step of steps) {
    const before = byStream.get(step.streamId);
    if (!before) {
      byStream.set(step.streamId, { streamId: step.streamId, events: step.events.map(toNewEvent), expectedVersion: step.expectedVersion });
      continue;
    }
    if (step.expectedVersion !== before.expectedVersion + before.events.length) {
      throw new Error(`CommandHandler: ${step.streamId} decided on twice, the second time not where the first left it`);
    }
    before.events.push(...step.events.map(toNewEvent));
  }
  return [...byStream.values()];
}
