import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ROOT_CONTEXT, type Tracer } from '@opentelemetry/api';
import type { EventDelivery } from '@onceport/messaging';
import type { Pool } from 'pg';
import { type RepeatedExecution, type RunReference, runIntentScope } from '@onceport/contracts';
import {
  type ExecutionCommand,
  type KnownExecutionState,
  type ToolContract,
  type ClaimIntent,
  type IntentClaim,
  type KeyBinding,
  type RetryMatch,
  fingerprintIntent,
  matchRetry,
  newExecutionId,
  retryCandidateOf,
  sealSensitiveArguments,
  validateArguments,
} from '@onceport/domain';
import {
  type CommandAttempt,
  type CommandHandler,
  type ResultStore,
  type EventCause,
  type IntentStream,
  type ExecutionStream,
  type IdempotencyKeyStream,
  type LoadedExecution,
  AppendGuardRefusedError,
  emptyStream,
  executionStream,
  intentStream,
} from '@onceport/event-store';
import { FAULT_POINTS, faultPoint } from '@onceport/fault-points';
import {
  COMMAND_HANDLER,
  EVENT_DELIVERY,
  PG_POOL,
  RESULT_STORE,
  TRACER,
  contextFromTraceparent,
  currentTraceContext,
  inSpan,
} from '@onceport/service-kit';
import { ANSWERABLE_STATES, type AgentAnswer } from '../answer/agent-answer';
import { buildAnswer } from '../answer/build-answer';
import { AcceptanceWatch } from '../await-outcome/acceptance-watch';
import { ExecutionWatcher } from '../await-outcome/execution-watcher';
import { INTAKE_DEPENDENCIES, type IntakeDependencies } from '../intake-dependencies';
import { InFlightCapReached, IntakeLimits } from '../limits';
import { IdempotencyKeyTakenError, InvalidArgumentsError, UnknownToolError } from './call-tool.errors';
import { IntentClaimTurns } from './intent-claim-turns';
import { KnownClaims } from './known-claims';
import { countCall } from '../metrics/intake-metrics';
import { RepeatRefusedError } from '../runs/run-errors';
import { RunsService } from '../runs/runs.service';
import { type ToolCallRequest, defaultIntentScope } from './call-tool.request';

/** How many of an intent's newest executions matching looks at. */
const CANDIDATES = 10;

interface IntentOfCall {
  readonly intentScope: string;
  readonly run: RunReference | null;
  readonly intent: ReturnType<typeof fingerprintIntent>;
  readonly streams: readonly IntentStream[];
  readonly context: EventCause;
  readonly watch: AcceptanceWatch;
  /** Take the in-flight place at one random pick, in the acceptance's own statement (else in a transaction, by turns if need be). */
  readonly placeAtRandom: boolean;
  /** Decide on no claims without reading them: the claim's version check is the read (see `startExecution`). */
  readonly unclaimed: boolean;
  readonly key: KeyToBind | null;
  /** Bind the key without reading it: the caller just found it unbound, and the binding's version check is the read. */
  readonly keyUnbound: boolean;
}

/** A REST `Idempotency-Key` the call binds to its execution (see `CallToolService.start`). */
export interface KeyToBind {
  readonly stream: IdempotencyKeyStream;
  readonly requestDigest: string;
  /** Binds the key to an execution the call attached to; returns the binding found instead when another request bound it first. */
  readonly bindAttached: (executionId: string) => Promise<KeyBinding | null>;
}

export interface CallOutcome {
  readonly answer: AgentAnswer;
  /** Set when this call created the execution; false when it attached to (or replayed) an earlier one. */
  readonly created: boolean;
}

interface Started {
  readonly executionId: string;
  readonly created: boolean;
  readonly ledgerHit: boolean;
  readonly run: RunReference | null;
}

/** A call accepted or attached, with the watch set up for its execution if it created one. */
interface StartedCall extends Started {
  readonly watch: AcceptanceWatch;
}

/** Matches a deliberate repeat may go past: the earlier execution is done (or denied), so a second one is a second effect, not a retry. */
const REPEATABLE: ReadonlySet<string> = new Set(['ledger_hit', 'replay_stored_result', 'same_denial']);

/**
 * The heart of intake: one tool call becomes a new execution, or attaches to the execution of the
 * same intent (DESIGN.md §5) — decided from the store, never from the transport — and is answered
 * with the truth once it is known or the wait is over.
 */
@Injectable()
export class CallToolService {
  /** Per-actor rate and in-flight limits: one set per process, shared by MCP and REST through this service. */
  private readonly limits: IntakeLimits;
  /** Identical calls here wait for the one deciding their intent instead of racing its claim. */
  private readonly claimTurns = new IntentClaimTurns();
  private readonly knownClaims = new KnownClaims();

  constructor(
    @Inject(INTAKE_DEPENDENCIES) private readonly deps: IntakeDependencies,
    @Inject(ExecutionWatcher) private readonly watcher: ExecutionWatcher,
    @Inject(COMMAND_HANDLER) private readonly commands: CommandHandler,
    @Inject(RESULT_STORE) private readonly results: ResultStore,
    @Inject(EVENT_DELIVERY) private readonly delivery: EventDelivery,
    @Inject(TRACER) private readonly tracer: Tracer,
    @Inject(PG_POOL) pool: Pool,
    @Inject(RunsService) private readonly runs: RunsService,
  ) {
    this.limits = new IntakeLimits(deps.limits, pool, commands);
    // The change feed reads every event of an execution a call waits on: folded as it comes, a woken
    // call answers without reading the stream again.
    watcher.onWatchedEvents((executionId, events) => commands.observe(executionStream(executionId), events));
  }

  /** Accepts or attaches, then waits for the answer (MCP and REST without an idempotency key). */
  call(request: ToolCallRequest): Promise<CallOutcome> {
    return this.withSpan(request, async (contract, args) => {
      const started = await this.acceptOrAttach(request, contract, args);
      return this.finish(started);
    });
  }

  /**
   * `call` for REST with an `Idempotency-Key`, bound before the call waits, so a reuse while it still
   * waits already finds it (and gets 409). A new execution binds the key in its acceptance's own
   * commit: when another request bound it first, nothing is accepted and `IdempotencyKeyTakenError`
   * names that binding — never an execution that runs behind a refusal. A call that attaches to an
   * execution already there binds it before it records its attach (a lost race there records nothing).
   */
  start(request: ToolCallRequest, key: KeyToBind): Promise<CallOutcome> {
    return this.withSpan(request, async (contract, args) => this.finish(await this.acceptOrAttach(request, contract, args, key)));
  }

  private async finish(started: StartedCall): Promise<CallOutcome> {
    const { executionId, created, ledgerHit, run, watch } = started;
    const state = await this.awaitAnswerable(executionId, watch.deadline - Date.now(), created ? watch.take(executionId) : null);
    return { answer: await buildAnswer(state, this.results, { attached: !created, ledgerHit, run }), created };
  }

  private withSpan(
    request: ToolCallRequest,
    work: (contract: ToolContract, args: Record<string, unknown>) => Promise<CallOutcome>,
  ): Promise<CallOutcome> {
    // First of all: a call over the rate costs nothing but this.
    this.limits.admitCall(request.actor);
    const contract = this.deps.contracts.get(request.tool);
    if (!contract) throw new UnknownToolError(request.tool, [...this.deps.contracts.keys()]);
    const validation = validateArguments(contract, request.arguments);
    if (!validation.ok) throw new InvalidArgumentsError(request.tool, validation.issues);
    const parent = request.traceparent ? contextFromTraceparent(request.traceparent, request.tracestate) : ROOT_CONTEXT;
    const attributes = {
      'onceport.tool': contract.name,
      'onceport.actor': request.actor,
      'onceport.transport': request.correlation.transport,
    };
    return inSpan(this.tracer, `intake call ${contract.name}`, parent, attributes, async (span) => {
      const outcome = await work(contract, validation.value);
      span.setAttribute('onceport.execution_id', outcome.answer.execution_id);
      span.setAttribute('onceport.attached', !outcome.created);
      span.setAttribute('onceport.state', outcome.answer.state);
      return outcome;
    });
  }

  private async acceptOrAttach(
    request: ToolCallRequest,
    contract: ToolContract,
    args: Record<string, unknown>,
    key: KeyToBind | null = null,
  ): Promise<StartedCall> {
    // The call's wait begins here, so a new execution can be watched before its acceptance commits.
    const watch = new AcceptanceWatch(this.watcher, Date.now() + request.waitMs);
    try {
      const started = await this.startExecution(request, contract, args, watch, key);
      if (!started.created) watch.cancel();
      return { ...started, watch };
    } catch (error) {
      watch.cancel();
      throw error;
    }
  }

  private async startExecution(
    request: ToolCallRequest,
    contract: ToolContract,
    args: Record<string, unknown>,
    watch: AcceptanceWatch,
    key: KeyToBind | null,
  ): Promise<Started> {
    const context = this.causation(request);
    // A run's calls share the scope its trigger derives, so every attempt matches the same intents (DESIGN.md §7).
    const run = request.run ? await this.runs.resolveForCall(request.actor, request.run, context) : null;
    const intentScope = run ? runIntentScope(run.trigger) : (request.intentScope ?? defaultIntentScope(request.actor));
    const intent = fingerprintIntent({ contract, actor: request.actor, intentScope, arguments: args }, this.deps.keyring);
    const streams = intent.matching.map((fingerprint) => intentStream(fingerprint, request.actor, intentScope));
    let released = false;
    let placeAtRandom = true;
    // Most calls are a new intent. Their first try decides on no claims without reading the claim
    // stream: the claim goes in at its version 1, which a claim already there makes fail, and the
    // next try reads and matches — the version check is the read, one round trip fewer on the path.
    // Not where a match is likely or the stream is not the only one: after waiting on an identical
    // call here (it just claimed), for an intent seen claimed here lately (a storm's later callers),
    // for a repeat or a run's later attempt (they look for an earlier execution), or under several
    // keys (a claim under an older key is not where this one goes).
    const claimStream = streams[0]?.id;
    let guessUnclaimed =
      streams.length === 1 && !request.repeat && (run?.attempt ?? 1) === 1 && !(claimStream && this.knownClaims.has(claimStream));
    // The same for a key: the caller just found it unbound; a conflict (it or the claim) reads both.
    let guessKeyUnbound = key !== null;
    for (;;) {
      try {
        // A lost race on the intent claim rolls everything back and runs again: then this call attaches.
        // Only a conflict proves the guess wrong: a refused place or a full cap says nothing about the claim.
        const decide = (waited: boolean) =>
          this.commands.transact(
            (attempt) => {
              const on: IntentOfCall = {
                intentScope,
                run,
                intent,
                streams,
                context,
                watch,
                placeAtRandom,
                unclaimed: guessUnclaimed && !waited,
                key,
                keyUnbound: guessKeyUnbound,
              };
              return this.claimOrMatch(attempt, request, contract, args, on);
            },
            () => {
              guessUnclaimed = false;
              guessKeyUnbound = false;
            },
          );
        const started = await (claimStream ? this.claimTurns.take(claimStream, decide) : decide(false));
        if (claimStream) this.knownClaims.add(claimStream);
        if (!started.created) {
          // Another request may have bound the key meanwhile: then this one attaches nowhere.
          const boundBefore = key ? await key.bindAttached(started.executionId) : null;
          if (boundBefore) throw new IdempotencyKeyTakenError(boundBefore);
          const attach = (_loaded: LoadedExecution, at: Date) => attachCommand(request, run, at);
          await this.commands.handle(executionStream(started.executionId), attach, context, { appendAnywhere: true });
          countCall(this.deps.contracts, contract.name, contract.channel, started.ledgerHit ? 'ledger_hit' : 'attached');
          return started;
        }
        countCall(this.deps.contracts, contract.name, contract.channel, 'accepted');
        faultPoint(FAULT_POINTS.intakeAfterAccept);
        this.delivery.nudge();
        return started;
      } catch (error) {
        if (error instanceof AppendGuardRefusedError) {
          // The random pick met a taken place: nothing was written; the slower way takes turns for one.
          placeAtRandom = false;
          continue;
        }
        if (!(error instanceof InFlightCapReached)) throw error;
        // At the cap as counted: free the places of executions that settled since, then try once more
        // (from the top: the intent may have been claimed meanwhile, and then this call attaches).
        await this.limits.releaseOrRefuse(request.actor, released ? error.inFlight : null);
        released = true;
      }
    }
  }

  /** Matches the call to an execution of its intent, or decides a new one: claim, in-flight place and acceptance, to commit together. */
  private async claimOrMatch(
    attempt: CommandAttempt,
    request: ToolCallRequest,
    contract: ToolContract,
    args: Record<string, unknown>,
    on: IntentOfCall,
  ): Promise<Started> {
    const { intentScope, run, intent, streams, context, watch, placeAtRandom, unclaimed, key } = on;
    const [loaded, keyLoaded] = await Promise.all([
      Promise.all(streams.map((stream) => (unclaimed ? emptyStream(stream) : attempt.load(stream)))),
      key && (on.keyUnbound ? emptyStream(key.stream) : attempt.load(key.stream)),
    ]);
    if (keyLoaded?.state) throw new IdempotencyKeyTakenError(keyLoaded.state);
    const candidates = await this.loadCandidates(loaded.flatMap((claims) => claims.state).slice(-CANDIDATES), request.receivedAt);
    const now = attempt.now();
    const match = matchRetry(candidates.map(retryCandidateOf), { fingerprints: intent.matching, actor: request.actor, intentScope }, now);
    if (match.kind !== 'new' && !request.repeat) {
      return { executionId: match.executionId, created: false, ledgerHit: match.kind === 'ledger_hit', run };
    }
    const repeats = repeatedExecution(match, request, contract);
    const executionId = newExecutionId(now.getTime(), randomBytes(10));
    const accept: ExecutionCommand = {
      type: 'AcceptExecution',
      metadata: { now },
      data: {
        executionId,
        tool: contract.name,
        channel: contract.channel,
        actor: request.actor,
        agentProcess: request.agentProcess,
        intentScope,
        fingerprint: intent.fingerprint,
        record: intent.record,
        // Sensitive values are stored sealed, never in clear (the dispatcher opens them to send).
        arguments: sealSensitiveArguments(contract, executionId, args as Record<string, never>, this.deps.sealer),
        effectClass: contract.effect,
        approval: contract.approval,
        correlationWindowMs: contract.correlationWindowMs,
        ledgerRetentionMs: contract.ledgerRetentionMs,
        clientIdempotencyKey: request.clientIdempotencyKey,
        run,
        repeats,
      },
    };
    // The claim, the in-flight place, the key if any and the acceptance commit together: a lost race or a refusal
    // leaves nothing behind, and no caller ever sees a claim whose execution is not written yet.
    // Usually in one statement: a place at a random pick guards the appends. A taken place refuses
    // it, and the call comes back to take one in a transaction, where the claim goes first: identical
    // calls that lose the race fail on it and never queue for the actor's in-flight turn.
    const [claiming, claims] = [streams[0], loaded[0]];
    if (!claiming || !claims) throw new Error('an intent has at least one fingerprint to claim under');
    const claim: ClaimIntent = { type: 'ClaimIntent', data: { executionId }, metadata: { now } };
    attempt.decide(claiming, claims, claim, { correlationId: executionId, causationId: executionId });
    // Before the place, in a transaction: a key bound meanwhile fails the call as a reuse, not as a full cap.
    if (key && keyLoaded) {
      const bind = { type: 'BindIdempotencyKey' as const, data: { executionId, requestDigest: key.requestDigest }, metadata: { now } };
      attempt.decide(key.stream, keyLoaded, bind, { correlationId: executionId, causationId: executionId });
    }
    if (placeAtRandom) attempt.onlyIf(this.limits.placeGuard(request.actor, executionId, now));
    else attempt.alsoInTransaction((tx) => this.limits.reserve(tx, request.actor, executionId, now));
    const execution = executionStream(executionId);
    attempt.decide(execution, emptyStream(execution), accept, context);
    watch.watch(executionId);
    return { executionId, created: true, ledgerHit: false, run };
  }

  /** The claimed executions' states, each as it was when this call arrived. */
  private async loadCandidates(claims: readonly IntentClaim[], receivedAt: number): Promise<KnownExecutionState[]> {
    const loaded = await Promise.all(claims.map((claim) => this.commands.load(executionStream(claim.executionId))));
    return loaded.filter((execution) => execution.state.status !== 'none').map((execution) => asSeenWhenReceived(execution, receivedAt));
  }

  /**
   * Waits until the execution says something final for this call, or the wait is over. With
   * `accepted` (the watch set up before this call's own acceptance committed), it first waits for
   * the execution's first change without reading it: it is known to be accepted and nothing more.
   */
  async awaitAnswerable(
    executionId: string,
    waitMs: number,
    accepted: ReturnType<AcceptanceWatch['take']> = null,
  ): Promise<KnownExecutionState> {
    const deadline = Date.now() + waitMs;
    const stream = executionStream(executionId);
    let changedTo: number | null = null;
    if (accepted) {
      try {
        if (!this.watcher.waitIsOver(deadline)) changedTo = await accepted.next;
      } finally {
        accepted.cancel();
      }
    }
    for (;;) {
      // Listen before reading, so a change between the read and the wait is not missed.
      const change = this.watcher.nextChange(executionId, deadline);
      try {
        const { state } = this.foldedUpTo(stream, changedTo) ?? (await this.commands.load(stream));
        if (state.status === 'none') throw new Error(`execution ${executionId} has no events`);
        if (ANSWERABLE_STATES.has(state.status) || this.watcher.waitIsOver(deadline)) return state;
        changedTo = await change.next;
      } finally {
        change.cancel();
      }
    }
  }

  /** The execution as folded from the change feed, if that fold holds the change that woke the call (null: read it). */
  private foldedUpTo(stream: ExecutionStream, changedTo: number | null): LoadedExecution | null {
    if (changedTo === null) return null;
    const folded = this.commands.cachedFold(stream);
    return folded && folded.version >= changedTo ? folded : null;
  }

  private causation(request: ToolCallRequest): EventCause {
    const trace = currentTraceContext();
    return { causationId: requestIdOf(request), actor: request.actor, traceparent: trace.traceparent, tracestate: trace.tracestate };
  }
}

/**
 * A call that arrived while the prior execution's result was not yet delivered is a retry of it,
 * however long this replica took to get to it: judge it by the state at arrival, not at processing.
 */
function asSeenWhenReceived(execution: LoadedExecution, receivedAt: number): KnownExecutionState {
  const state = execution.state as KnownExecutionState;
  if (state.status !== 'completed') return state;
  const firstDelivery = execution.events.find((event) => event.type === 'ResultDelivered');
  if (!firstDelivery || Date.parse(firstDelivery.metadata.occurredAt) <= receivedAt) return state;
  return { ...state, status: 'completed_result_not_delivered' };
}

function attachCommand(request: ToolCallRequest, run: RunReference | null, now: Date): ExecutionCommand {
  return {
    type: 'AttachRetry',
    metadata: { now },
    data: { correlation: request.correlation, agentProcess: request.agentProcess, clientIdempotencyKey: request.clientIdempotencyKey, run },
  };
}

/**
 * The earlier execution a new one repeats. Said by the agent (a deliberate repeat, with its reason),
 * it may only go past an execution that is done or denied — never one whose outcome is still open,
 * where a "repeat" would be a blind retry. Otherwise it is the newest execution of the intent that
 * did not absorb the call (failed, lapsed…), shown to approvers and in the divergence report.
 */
function repeatedExecution(match: RetryMatch, request: ToolCallRequest, contract: ToolContract): RepeatedExecution | null {
  if (!request.repeat)
    return match.kind === 'new' && match.reasons[0] ? { executionId: match.reasons[0].executionId, deliberate: false, reason: null } : null;
  if (contract.deliberateRepeats === 'refused') {
    throw new RepeatRefusedError(`${contract.name} takes no deliberate repeats (its contract says deliberate_repeats: refused)`, null);
  }
  if (match.kind === 'new') {
    const newest = match.reasons[0];
    return newest ? { executionId: newest.executionId, deliberate: true, reason: request.repeat.reason } : null;
  }
  const answer = match.kind === 'ledger_hit' ? 'ledger_hit' : match.answer;
  if (!REPEATABLE.has(answer)) {
    throw new RepeatRefusedError(
      `execution ${match.executionId} of this intent is not settled yet (${answer}): ask for it, and repeat once it is done`,
      match.executionId,
    );
  }
  return { executionId: match.executionId, deliberate: true, reason: request.repeat.reason };
}

function requestIdOf(request: ToolCallRequest): string {
  const c = request.correlation;
  return c.requestId ?? `${c.transport}:${c.sessionId ?? 'no-session'}:${String(c.jsonRpcId ?? 'no-id')}`;
}
