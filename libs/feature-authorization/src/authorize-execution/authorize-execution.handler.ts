import { type Tracer } from '@opentelemetry/api';
import { type ActorDirectory } from '@onceport/config';
import { type ApprovalMode, type ExecutionAcceptedData, parseEvent } from '@onceport/contracts';
import { type ExecutionFacts, effectiveAgentProcess } from '@onceport/domain';
import { type DeliveryContext, type WireEvent } from '@onceport/messaging';
import { type CausationContext, type ExecutionRepository, contextFromTraceparent, currentTraceContext, inSpan } from '@onceport/runtime';
import { type SessionGrants } from '../sessions/session-grants';
import { type Log } from '../shared/log';
import { type VaultRepository } from '../vault/vault.repository';
import { AUTHORIZATION_SERVICE, type AuthorizationDecision, type AuthorizationRung, decideAuthorization } from './decide-authorization';

export interface AuthorizeExecutionDependencies {
  readonly executions: ExecutionRepository;
  readonly vault: VaultRepository;
  readonly sessions: SessionGrants;
  readonly directory: ActorDirectory;
  /** Tool contracts by name, as configured now (only the approval mode is read). */
  readonly contracts: ReadonlyMap<string, { readonly approval: ApprovalMode }>;
  readonly approvalTtlMs: number;
  readonly tracer: Tracer;
  readonly log: Log;
  readonly clock?: () => Date;
  /** Something was appended: lets the relay publish it now rather than at its next poll. */
  readonly onAppended?: () => void;
}

export type AuthorizationOutcome =
  | { readonly decided: true; readonly rung: AuthorizationRung; readonly grantRecorded: boolean; readonly appended: readonly string[] }
  /** A redelivery (the execution is past `accepted`), or an event no version of us can read. */
  | { readonly decided: false; readonly reason: string };

/** How often a lost race on a session stream is retried; each loss means a grant now exists. */
const GRANT_ATTEMPTS = 5;

/**
 * Decides one accepted execution (DESIGN.md §6): loads it, its vault and session, runs the ladder,
 * records an automatic session grant, and appends the decision with the execution's expected
 * version. Only an execution still `accepted` is decided, so a redelivered event — even one that
 * arrives after the vault was locked — never changes a decision already made.
 */
export class AuthorizeExecutionHandler {
  private readonly clock: () => Date;

  constructor(private readonly deps: AuthorizeExecutionDependencies) {
    this.clock = deps.clock ?? (() => new Date());
  }

  async handle(event: WireEvent, delivery: Pick<DeliveryContext, 'traceparent' | 'tracestate'>): Promise<AuthorizationOutcome> {
    const accepted = this.read(event);
    if (!accepted) return { decided: false, reason: 'not an ExecutionAccepted' };
    const metadata = event.metadata as { traceparent?: string; tracestate?: string };
    const parent = contextFromTraceparent(delivery.traceparent ?? metadata.traceparent, delivery.tracestate ?? metadata.tracestate);
    const attributes = { 'onceport.execution_id': accepted.executionId, 'onceport.tool': accepted.tool, 'onceport.actor': accepted.actor };
    return inSpan(this.deps.tracer, `authorize ${accepted.tool}`, parent, attributes, async (span) => {
      const outcome = await this.decide(accepted.executionId, event.metadata.eventId);
      span.setAttribute('onceport.authorization', outcome.decided ? outcome.rung : `skipped: ${outcome.reason}`);
      this.deps.log('info', outcome.decided ? 'authorization decided' : 'authorization skipped', { ...attributes, ...outcome });
      return outcome;
    });
  }

  private async decide(executionId: string, causationId: string): Promise<AuthorizationOutcome> {
    const loaded = await this.deps.executions.load(executionId);
    if (loaded.state.status !== 'accepted') return { decided: false, reason: `execution is ${loaded.state.status}` };
    const facts = loaded.state.facts;
    const cause: CausationContext = { causationId, actor: AUTHORIZATION_SERVICE, ...currentTraceContext() };
    const { decision, grantRecorded } = await this.decideRecordingGrant(facts, cause);
    const handled = await this.deps.executions.handle(
      executionId,
      (current, now) => (current.state.status === 'accepted' ? { ...decision.command, metadata: { now } } : null),
      cause,
    );
    if (grantRecorded || handled.appended.length > 0) this.deps.onAppended?.();
    return { decided: true, rung: decision.rung, grantRecorded, appended: handled.appended.map((e) => e.type) };
  }

  /** Runs the ladder; when it grants a session, records the grant first. A lost race means another replica granted it: decide again on that grant. */
  private async decideRecordingGrant(facts: ExecutionFacts, cause: CausationContext): Promise<{ decision: AuthorizationDecision; grantRecorded: boolean }> {
    const agentProcess = effectiveAgentProcess(facts.actor, facts.agentProcess);
    const vault = (await this.deps.vault.load()).state;
    for (let attempt = 1; ; attempt++) {
      const session = await this.deps.sessions.load(facts.actor, agentProcess);
      const now = this.clock();
      const decision = decideAuthorization({
        execution: facts,
        contractApproval: this.deps.contracts.get(facts.tool)?.approval ?? null,
        vault,
        actor: this.deps.directory.actor(facts.actor),
        sessionGrant: session.grant,
        policyVersion: this.deps.directory.policyVersion,
        approvalTtlMs: this.deps.approvalTtlMs,
        now,
      });
      if (!decision.grant) return { decision, grantRecorded: false };
      const recorded = await this.deps.sessions.record(decision.grant, session.version, { ...cause, correlationId: facts.executionId }, now);
      if (recorded) return { decision, grantRecorded: true };
      this.deps.log('info', 'session grant lost the race: another replica granted it', { executionId: facts.executionId, actor: facts.actor, agentProcess });
      if (attempt >= GRANT_ATTEMPTS) throw new Error(`session stream of ${facts.actor} / ${agentProcess} kept changing under ${GRANT_ATTEMPTS} attempts to grant it`);
    }
  }

  /**
   * An event from a newer producer is retried (the consumer naks it, and the quarantine does not
   * count it) until this service is upgraded; one that can never be read throws too, so the
   * consumer quarantines it for an operator instead of leaving its execution silently `accepted`.
   */
  private read(event: WireEvent): ExecutionAcceptedData | null {
    const parsed = parseEvent(event);
    if (parsed.type === 'ExecutionAccepted') return parsed.data;
    this.deps.log('error', 'authorization received an event it does not handle', { type: parsed.type, eventId: event.metadata.eventId });
    return null;
  }
}
