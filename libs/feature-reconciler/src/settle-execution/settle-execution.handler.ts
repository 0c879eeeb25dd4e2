import type { ResultReference, Settlement } from '@onceport/contracts';
import {
  type ArgumentSealer,
  type ExecutionCommand,
  type HttpToolContract,
  type KnownExecutionState,
  type McpToolContract,
  type SshToolContract,
  type ToolContract,
  openSealedArguments,
} from '@onceport/domain';
import { currentTraceContext, inSpan, contextFromTraceparent } from '@onceport/service-kit';
import { type CredentialResolver, type HttpChannel, McpChannel, SshChannel } from '@onceport/target-channels';
import { countSettlementEvents } from '../metrics/settlement-metrics';
import { movedOnSince } from './moved-on-since';
import { ROOT_CONTEXT, type Tracer } from '@opentelemetry/api';
import { type MarkerStep, markerStep } from './marker-step';
import { taskStep } from './task-step';
import { type SettlementLimits, type SettlementPlan, planSettlement } from './plan-settlement';
import { type CommandHandler, type EventCause, type LoadedExecution, type ResultStore, executionStream } from '@onceport/event-store';

export interface SettleDependencies {
  readonly commands: CommandHandler;
  /** Where a probe's answer is stored (by reference) when it finds the effect applied. */
  readonly results: ResultStore;
  readonly tracer: Tracer;
  readonly contracts: ReadonlyMap<string, ToolContract>;
  readonly channel: HttpChannel;
  readonly credentials: CredentialResolver;
  /** Opens sealed sensitive arguments for a probe that renders them (`ONCEPORT_ENCRYPTION_KEYS`). */
  readonly sealer: Pick<ArgumentSealer, 'open'>;
  readonly limits: SettlementLimits;
  readonly reconcilerId: string;
  /** Reads SSH markers; made here when not given (it holds no connection between probes). */
  readonly ssh?: Pick<SshChannel, 'probe'>;
  /** Reads MCP upstream tasks; pass the service's own channel (its sessions are closed with it). */
  readonly mcp?: Pick<McpChannel, 'probeTask'>;
  /** Where stand-downs are reported; silent when not given. */
  readonly log?: SettleLog;
}

export type SettleLog = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

/** `version`: the stream version this call last saw (a wait is only good while the stream stays there). */
export type SettleOutcome = {
  readonly done: SettlementPlan['kind'];
  readonly status: string;
  readonly nextCheckAtMs: number | null;
  readonly version: number;
};

/** A probe that found the effect applied, with its answer stored as the execution's result. */
interface AppliedAnswer {
  readonly attempt: number;
  readonly targetStatus: number;
  readonly detail: string;
  readonly result: ResultReference;
}

/** Logged (with the execution id) when a fenced write finds the stream moved on: someone else acted first. */
export const STOOD_DOWN_MESSAGE = 'reconciler stood down: the execution changed elsewhere before its write';

/** Steps a plan may take in one call before handing back (a probe, its record, the settlement…). */
const MAX_STEPS = 8;

/**
 * Carries out settlement plans for one execution until it is settled or has to wait. Every write is
 * fenced on the stream version the plan was made from: a second reconciler (or a late dispatcher)
 * that changed the stream meanwhile makes this one stand down, so nobody settles or re-sends twice
 * (retries attaching and answers delivered commute with it: see {@link movedOnSince}).
 */
export class SettleExecutionHandler {
  private readonly ssh: Pick<SshChannel, 'probe'>;
  private readonly mcp: Pick<McpChannel, 'probeTask'>;
  /** Markers (and upstream tasks) found running: when to read them again (in memory: losing it only costs an early read). */
  private readonly runningUntil = new Map<string, { readonly readings: number; readonly nextAtMs: number }>();

  constructor(private readonly deps: SettleDependencies) {
    this.ssh = deps.ssh ?? new SshChannel();
    this.mcp = deps.mcp ?? new McpChannel();
  }

  async settle(executionId: string, causation: { causationId: string; traceparent?: string | null }): Promise<SettleOutcome> {
    let loaded = await this.deps.commands.load(executionStream(executionId));
    if (loaded.state.status === 'none') return { done: 'nothing', status: 'none', nextCheckAtMs: null, version: loaded.version };
    const parent = contextFromTraceparent(causation.traceparent ?? traceOf(loaded), null);
    return inSpan(
      this.deps.tracer,
      `reconcile ${loaded.state.facts.tool}`,
      parent ?? ROOT_CONTEXT,
      { 'onceport.execution_id': executionId },
      async (span) => {
        let applied: AppliedAnswer | null = null;
        for (let step = 0; step < MAX_STEPS; step++) {
          const state = loaded.state as KnownExecutionState;
          const contract = this.deps.contracts.get(state.facts.tool) ?? null;
          const plan = planSettlement({ state, contract, nowMs: Date.now(), lastProbeAtMs: lastProbeAt(loaded), limits: this.deps.limits });
          span.addEvent(`plan ${plan.kind}`);
          if (plan.kind === 'nothing') {
            this.runningUntil.delete(executionId);
            return { done: 'nothing', status: state.status, nextCheckAtMs: null, version: loaded.version };
          }
          if (plan.kind === 'wait') return { done: 'wait', status: state.status, nextCheckAtMs: plan.untilMs, version: loaded.version };
          if (plan.kind === 'probe' && (contract?.channel === 'ssh' || contract?.channel === 'mcp')) {
            // A marker or an upstream task: read, then settled by what it says (or read again later).
            const marker =
              contract.channel === 'ssh'
                ? await this.readMarker(state, contract, plan.attempt, plan.probeNumber)
                : await this.readTask(state, contract, plan.attempt, plan.probeNumber);
            if (marker.kind === 'wait')
              return { done: 'wait', status: state.status, nextCheckAtMs: marker.untilMs, version: loaded.version };
            for (const command of marker.commands) {
              const next = await this.appendFenced(executionId, loaded.version, command, causation.causationId);
              if (!next) return this.stoodDown(executionId, loaded.version, command);
              loaded = next;
            }
            span.setAttribute('onceport.state', loaded.state.status);
            if (loaded.state.status !== 'dispatched_unknown')
              return { done: 'settle', status: loaded.state.status, nextCheckAtMs: null, version: loaded.version };
            continue;
          }
          let command: ExecutionCommand;
          if (plan.kind === 'probe') {
            const probed = await this.probe(state, contract as HttpToolContract, plan.attempt, plan.probeNumber);
            command = probed.command;
            applied = probed.applied ?? applied;
          } else if (plan.kind === 'settle' && plan.settlement === 'completed' && contract?.channel === 'http') {
            // Settled by a probe: the probe's answer is the result (fetched again if this call did not probe).
            applied ??= (await this.probe(state, contract, plan.attempt, 0)).applied;
            command =
              applied?.attempt === plan.attempt
                ? settleCommand(
                    plan.attempt,
                    'completed',
                    `${plan.reason} (${applied.detail}); its answer is kept as the result`,
                    applied.targetStatus,
                    applied.result,
                  )
                : commandOf(plan);
          } else {
            command = commandOf(plan);
          }
          const next = await this.appendFenced(executionId, loaded.version, command, causation.causationId);
          if (!next) return this.stoodDown(executionId, loaded.version, command);
          loaded = next;
          span.setAttribute('onceport.state', loaded.state.status);
          if (plan.kind === 'settle') return { done: 'settle', status: loaded.state.status, nextCheckAtMs: null, version: loaded.version };
        }
        return { done: 'wait', status: loaded.state.status, nextCheckAtMs: Date.now(), version: loaded.version };
      },
    );
  }

  /** Fencing made this call stand down; logged so a race between reconcilers can be seen, not only inferred. */
  private stoodDown(executionId: string, seenVersion: number, command: ExecutionCommand): SettleOutcome {
    this.deps.log?.('info', STOOD_DOWN_MESSAGE, {
      executionId,
      reconcilerId: this.deps.reconcilerId,
      seenVersion,
      wouldHave: command.type,
    });
    return { done: 'nothing', status: 'changed_elsewhere', nextCheckAtMs: null, version: seenVersion };
  }

  /** Probes over HTTP; an `applied` answer is stored (by reference, like a dispatch result) for the settlement. */
  private async probe(
    state: KnownExecutionState,
    contract: HttpToolContract,
    attempt: number,
    probeNumber: number,
  ): Promise<{ command: ExecutionCommand; applied: AppliedAnswer | null }> {
    let credential: string | null = null;
    try {
      credential = contract.credentialRef ? this.deps.credentials.resolve(contract.credentialRef) : null;
    } catch {
      return { command: recordProbe(attempt, probeNumber, 'cant_tell', 'the probe credential is not configured'), applied: null };
    }
    if (!contract.probe)
      return { command: recordProbe(attempt, probeNumber, 'cant_tell', 'the contract declares no probe'), applied: null };
    const opened = openSealedArguments(state.facts.executionId, state.facts.arguments, this.deps.sealer);
    if (!opened.ok) return { command: recordProbe(attempt, probeNumber, 'cant_tell', opened.reason), applied: null };
    const { answer, ...result } = await this.deps.channel.probe({
      contract,
      executionId: state.facts.executionId,
      arguments: opened.arguments,
      credential,
      traceHeaders: headersOf(currentTraceContext()),
    });
    let applied: AppliedAnswer | null = null;
    if (result.verdict === 'applied' && answer) {
      applied = {
        attempt,
        targetStatus: answer.status,
        detail: result.detail,
        result: await this.deps.results.put(answer.body, answer.contentType),
      };
    }
    return { command: recordProbe(attempt, probeNumber, result.verdict, result.detail), applied };
  }

  /**
   * Reads the SSH marker and turns it into commands: a completed command settles by its exit status
   * with its output stored as the result; a running one is read again later with backoff, without
   * spending a probe, until it runs past its timeout.
   */
  private async readMarker(
    state: KnownExecutionState,
    contract: SshToolContract,
    attempt: number,
    probeNumber: number,
  ): Promise<{ kind: 'wait'; untilMs: number } | { kind: 'append'; commands: ExecutionCommand[] }> {
    const executionId = state.facts.executionId;
    const nowMs = Date.now();
    const running = this.runningUntil.get(executionId);
    if (running && running.nextAtMs > nowMs) return { kind: 'wait', untilMs: running.nextAtMs };
    let credential: string | null = null;
    try {
      credential = contract.credentialRef ? this.deps.credentials.resolve(contract.credentialRef) : null;
    } catch {
      return {
        kind: 'append',
        commands: [
          recordProbe(attempt, probeNumber, 'cant_tell', `credential "${contract.credentialRef}" for the marker probe is not configured`),
        ],
      };
    }
    const opened = openSealedArguments(executionId, state.facts.arguments, this.deps.sealer);
    if (!opened.ok) return { kind: 'append', commands: [recordProbe(attempt, probeNumber, 'cant_tell', opened.reason)] };
    const probe = await this.ssh.probe({ contract, executionId, arguments: opened.arguments, credential });
    return this.carryOut(executionId, attempt, probeNumber, markerStep(probe, contract, executionId, Date.now()));
  }

  /**
   * Reads the task an MCP upstream answered with (`tasks/get`, then its result once it ended) and
   * turns it into commands like a marker reading: ended → settled with its result stored; working →
   * read again later with backoff, without spending a probe, while the correlation window lasts.
   */
  private async readTask(
    state: KnownExecutionState,
    contract: McpToolContract,
    attempt: number,
    probeNumber: number,
  ): Promise<{ kind: 'wait'; untilMs: number } | { kind: 'append'; commands: ExecutionCommand[] }> {
    const executionId = state.facts.executionId;
    const running = this.runningUntil.get(executionId);
    if (running && running.nextAtMs > Date.now()) return { kind: 'wait', untilMs: running.nextAtMs };
    const taskId = state.status === 'dispatched_unknown' ? state.unknown.upstreamTaskId : null;
    if (state.status !== 'dispatched_unknown' || taskId === null)
      return { kind: 'append', commands: [recordProbe(attempt, probeNumber, 'cant_tell', 'no upstream task was recorded')] };
    let credential: string | null = null;
    try {
      credential = contract.credentialRef ? this.deps.credentials.resolve(contract.credentialRef) : null;
    } catch {
      const detail = `credential "${contract.credentialRef}" of the upstream is not configured`;
      return { kind: 'append', commands: [recordProbe(attempt, probeNumber, 'cant_tell', detail)] };
    }
    const probe = await this.mcp.probeTask({ contract, taskId, credential });
    const step = taskStep(probe, contract, { taskId, detectedAt: state.unknown.detectedAt }, Date.now());
    return this.carryOut(executionId, attempt, probeNumber, step);
  }

  /** A marker's or a task's step as commands, or the time to read it again (in memory: losing it costs an early read). */
  private async carryOut(
    executionId: string,
    attempt: number,
    probeNumber: number,
    step: MarkerStep,
  ): Promise<{ kind: 'wait'; untilMs: number } | { kind: 'append'; commands: ExecutionCommand[] }> {
    const running = this.runningUntil.get(executionId);
    if (step.kind === 'wait') {
      const readings = (running?.readings ?? 0) + 1;
      const backoff = Math.min(this.deps.limits.probeBackoffMs * 2 ** (readings - 1), this.deps.limits.maxProbeBackoffMs);
      this.runningUntil.set(executionId, { readings, nextAtMs: Date.now() + backoff });
      return { kind: 'wait', untilMs: Date.now() + backoff };
    }
    this.runningUntil.delete(executionId);
    if (step.kind === 'record') {
      const commands = [recordProbe(attempt, probeNumber, step.verdict, step.detail)];
      if (step.thenSettle) commands.push(settleCommand(attempt, step.thenSettle.settlement, step.thenSettle.reason, null, null));
      return { kind: 'append', commands };
    }
    const result = await this.deps.results.put(step.body, step.contentType ?? 'application/json');
    return { kind: 'append', commands: [settleCommand(attempt, step.settlement, step.reason, step.exitStatus, result)] };
  }

  /** Appends only if the stream is still at the version the plan saw; null when someone else moved it. */
  private async appendFenced(
    executionId: string,
    seenVersion: number,
    command: ExecutionCommand,
    causationId: string,
  ): Promise<LoadedExecution | null> {
    const trace = currentTraceContext();
    const context: EventCause = {
      causationId,
      actor: `svc:reconciler:${this.deps.reconcilerId}`,
      traceparent: trace.traceparent,
      tracestate: trace.tracestate,
    };
    let changed = false;
    const handled = await this.deps.commands.handle(
      executionStream(executionId),
      (loaded, now) => {
        if (movedOnSince(loaded.events, seenVersion)) {
          changed = true;
          return null;
        }
        return { ...command, metadata: { now } } as ExecutionCommand;
      },
      context,
    );
    if (changed) return null;
    countSettlementEvents(this.deps.contracts, handled);
    return handled;
  }
}

function commandOf(plan: Extract<SettlementPlan, { kind: 'mark_unknown' | 'settle' }>): ExecutionCommand {
  const metadata = { now: new Date() };
  if (plan.kind === 'mark_unknown') return { type: 'MarkOutcomeUnknown', metadata, data: { attempt: plan.attempt, reason: plan.reason } };
  return settleCommand(plan.attempt, plan.settlement, plan.reason, null, null);
}

function settleCommand(
  attempt: number,
  settlement: Settlement,
  reason: string,
  targetStatus: number | null,
  result: ResultReference | null,
): ExecutionCommand {
  return { type: 'SettleOutcome', metadata: { now: new Date() }, data: { attempt, settlement, reason, targetStatus, result } };
}

function recordProbe(
  attempt: number,
  probeNumber: number,
  verdict: 'applied' | 'not_applied' | 'cant_tell',
  detail: string,
): ExecutionCommand {
  return { type: 'RecordProbe', metadata: { now: new Date() }, data: { attempt, probeNumber, verdict, detail: detail.slice(0, 500) } };
}

function lastProbeAt(loaded: LoadedExecution): number | null {
  for (let i = loaded.events.length - 1; i >= 0; i--) {
    const event = loaded.events[i];
    if (event?.type === 'ProbeAttempted') return Date.parse(event.data.probedAt);
    if (event?.type === 'OutcomeUnknown') return null;
  }
  return null;
}

function traceOf(loaded: LoadedExecution): string | null {
  return loaded.events[0]?.metadata.traceparent ?? null;
}

function headersOf(trace: { traceparent: string | null; tracestate: string | null }): Record<string, string> {
  return {
    ...(trace.traceparent ? { traceparent: trace.traceparent } : {}),
    ...(trace.tracestate ? { tracestate: trace.tracestate } : {}),
  };
}
