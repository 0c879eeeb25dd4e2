import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type RunReference, runStreamId } from '@onceport/contracts';
import {
  type AttemptDivergence,
  type KnownExecutionState,
  type OpenRunState,
  type ReplayCheck,
  type RunExecution,
  RunRefusal,
  checkReplay,
  currentAttempt,
  divergenceOf,
  newExecutionId,
  runExecutionOf,
} from '@onceport/domain';
import { type CommandHandler, type EventCause, executionStream, runStream } from '@onceport/event-store';
import {
  type RunCallRow,
  type RunsPage,
  type RunsQuery,
  catchUpReadModel,
  executionMatchesProjection,
  executionStates,
  pageOfRuns,
  runCalls,
  runsProjection,
} from '@onceport/read-models';
import { COMMAND_HANDLER, PG_POOL, SERVICE_LOG, type ServiceLog } from '@onceport/service-kit';
import type { Pool } from 'pg';
import { type NamedRun } from '../input-bounds';

/** Who asks: the run's own actor (its API key or token), or an operator with an admin key. */
export type RunCaller = { readonly kind: 'actor'; readonly id: string } | { readonly kind: 'admin'; readonly id: string };

/** A run with every execution its attempts created or asked again. */
export interface RunReport {
  readonly run: OpenRunState;
  readonly calls: readonly RunCallRow[];
  readonly executions: ReadonlyMap<string, RunExecution>;
}

/**
 * Runs (DESIGN.md §7): opened by a runtime or by a run's first call, replayed only when the replay
 * check says every effect so far is safe (or an operator forces it, audited), and reported by
 * attempt. Decisions go through the run stream; what a run did is read from the runs projection.
 */
@Injectable()
export class RunsService {
  constructor(
    @Inject(COMMAND_HANDLER) private readonly commands: CommandHandler,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_LOG) private readonly log: ServiceLog,
  ) {}

  /** Opens a run (attempt 1); opening the same run again with the same trigger answers the run as it is. */
  async open(actor: string, runId: string | null, trigger: string, cause: EventCause): Promise<{ run: OpenRunState; created: boolean }> {
    const id = runId ?? `run_${newExecutionId(Date.now(), randomBytes(10)).slice('exe_'.length)}`;
    const handled = await this.commands.handle(
      runStream(id),
      (_loaded, now) => ({ type: 'OpenRun', data: { runId: id, actor, trigger }, metadata: { now } }),
      { ...cause, correlationId: runStreamId(id) },
    );
    return { run: handled.state as OpenRunState, created: handled.appended.length > 0 };
  }

  /** The run and attempt a call belongs to; a first call that names a trigger opens the run. */
  async resolveForCall(actor: string, named: NamedRun, cause: EventCause): Promise<RunReference> {
    let { state } = await this.commands.load(runStream(named.id));
    if (state.status === 'none') {
      if (named.trigger === null)
        throw new RunRefusal('run_not_found', `no run ${named.id}: open it with POST /v1/runs, or name its trigger on its first call`);
      state = (await this.open(actor, named.id, named.trigger, cause)).run;
    }
    if (state.status !== 'open') throw new RunRefusal('run_not_found', `no run ${named.id}`);
    if (state.actor !== actor) throw new RunRefusal('run_of_another_actor', `run ${named.id} belongs to another actor`);
    if (named.trigger !== null && named.trigger !== state.trigger) {
      throw new RunRefusal('trigger_differs', `run ${named.id} was opened for trigger "${state.trigger}"; a new trigger is a new run`);
    }
    const latest = currentAttempt(state);
    if (named.attempt !== null && named.attempt > latest) {
      throw new RunAttemptNotStarted(named.id, named.attempt, latest);
    }
    return { runId: state.runId, attempt: named.attempt ?? latest, trigger: state.trigger };
  }

  /**
   * Runs newest first, a page at a time: an actor sees its own (naming another actor is refused), an
   * operator every run, by actor or trigger if asked.
   */
  async list(caller: RunCaller, query: RunsQuery): Promise<RunsPage> {
    if (caller.kind === 'actor' && query.actor !== undefined && query.actor !== caller.id)
      throw new RunRefusal('run_of_another_actor', "an agent key lists its own runs; another actor's take an admin key");
    await catchUpReadModel(this.pool, runsProjection, this.log);
    const page = await pageOfRuns(this.pool, caller.kind === 'actor' ? { ...query, actor: caller.id } : query);
    if (!page) throw new UnknownRunsCursor();
    return page;
  }

  /**
   * The run, each call and each execution's current state. `current`: the caller decides on it (a
   * replay), so a read model that could not be brought up to date is an error to retry, never an
   * answer that might miss a call the run made.
   */
  async report(caller: RunCaller, runId: string, { current = false } = {}): Promise<RunReport> {
    const run = await this.loadRun(caller, runId);
    const caughtUp =
      (await catchUpReadModel(this.pool, runsProjection, this.log)) &&
      (await catchUpReadModel(this.pool, executionMatchesProjection, this.log));
    if (current && !caughtUp) throw new RunsReadModelBehind();
    const calls = await runCalls(this.pool, runId);
    const createdIn = new Map(calls.filter((call) => call.relation === 'created').map((call) => [call.executionId, call.attempt]));
    const states = await executionStates(this.pool, [...createdIn.keys()]);
    const executions = new Map<string, RunExecution>();
    for (const [executionId, attempt] of createdIn) {
      const state = states.get(executionId) ?? (await this.loadExecution(executionId));
      if (state) executions.set(executionId, runExecutionOf(state, attempt));
    }
    return { run, calls, executions };
  }

  /** Would a replay now repeat anything? Asked without starting one. */
  async replayCheck(caller: RunCaller, runId: string): Promise<{ report: RunReport; check: ReplayCheck }> {
    const report = await this.report(caller, runId, { current: true });
    return { report, check: checkReplay([...report.executions.values()], new Date()) };
  }

  /**
   * Starts attempt n+1 when the check says yes. `force` (operators only) starts it anyway, and the
   * audited event lists what the new attempt may repeat.
   */
  async replay(
    caller: RunCaller,
    runId: string,
    force: { reason: string } | null,
    cause: EventCause,
  ): Promise<{ run: OpenRunState; check: ReplayCheck }> {
    const { report, check } = await this.replayCheck(caller, runId);
    const after = currentAttempt(report.run);
    const handled = await this.commands.handle(
      runStream(runId),
      (_loaded, now) => ({
        type: 'StartReplay',
        data: {
          after,
          requestedBy: caller.id,
          check,
          force: force && caller.kind === 'admin' ? { by: caller.id, reason: force.reason } : null,
        },
        metadata: { now },
      }),
      { ...cause, correlationId: runStreamId(runId) },
    );
    return { run: handled.state as OpenRunState, check };
  }

  async divergence(caller: RunCaller, runId: string): Promise<{ report: RunReport; attempts: AttemptDivergence[] }> {
    const report = await this.report(caller, runId);
    const calls = report.calls.map((call) => ({ attempt: call.attempt, executionId: call.executionId }));
    return { report, attempts: divergenceOf(currentAttempt(report.run), calls, report.executions) };
  }

  private async loadRun(caller: RunCaller, runId: string): Promise<OpenRunState> {
    const { state } = await this.commands.load(runStream(runId));
    if (state.status !== 'open') throw new RunRefusal('run_not_found', `no run ${runId}`);
    if (caller.kind === 'actor' && state.actor !== caller.id)
      throw new RunRefusal('run_of_another_actor', `run ${runId} belongs to another actor`);
    return state;
  }

  /** An execution the read model does not hold yet (it lags, or quarantined an event): folded from its stream. */
  private async loadExecution(executionId: string): Promise<KnownExecutionState | null> {
    const { state } = await this.commands.load(executionStream(executionId));
    return state.status === 'none' ? null : state;
  }
}

/** The runs read model could not be brought up to date just now (another replica is applying it): ask again. */
export class RunsReadModelBehind extends Error {
  readonly code = 'read_model_behind';
  constructor() {
    super('what this run did could not be read in full just now; ask again in a moment');
    this.name = 'RunsReadModelBehind';
  }
}

/** A runs-list cursor that names no run (made up, or from a database rebuilt since). */
export class UnknownRunsCursor extends Error {
  readonly code = 'invalid_cursor';
  constructor() {
    super('the cursor names no run; start again without one');
    this.name = 'UnknownRunsCursor';
  }
}

/** A call named an attempt the run has not started (a replay has to be asked for first). */
export class RunAttemptNotStarted extends Error {
  readonly code = 'attempt_not_started';
  constructor(runId: string, attempt: number, latest: number) {
    super(`run ${runId} is at attempt ${latest}; attempt ${attempt} starts with POST /v1/runs/${runId}/replays`);
    this.name = 'RunAttemptNotStarted';
  }
}
