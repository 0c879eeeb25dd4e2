import { type Tracer } from '@opentelemetry/api';
import { type ActorDirectory } from '@onceport/config';
import { type ApprovalMode, type ExecutionAcceptedData, parseEvent } from '@onceport/contracts';
import { type ExecutionFacts, type VaultState, effectiveAgentProcess } from '@onceport/domain';
import { type DeliveryContext, type WireEvent } from '@onceport/messaging';
import { contextFromTraceparent, currentTraceContext, inSpan } from '@onceport/service-kit';
import { approveFromCampaign } from '../approvals/campaign-approval';
import { countApprovalEvents, countAuthorization } from '../metrics/authorization-metrics';
import { type Log } from '../shared/log';
import { AUTHORIZATION_SERVICE, type AuthorizationDecision, type AuthorizationRung, decideAuthorization } from './decide-authorization';
import {
  type CommandHandler,
  type EventCause,
  type LoadedOf,
  type SessionStream,
  executionStream,
  sessionStream,
  vaultStream,
} from '@onceport/event-store';

export interface AuthorizeExecutionDependencies {
  readonly commands: CommandHandler;
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
      const outcome = await this.decide(accepted, event.metadata.eventId);
      span.setAttribute('onceport.authorization', outcome.decided ? outcome.rung : `skipped: ${outcome.reason}`);
      this.deps.log('info', outcome.decided ? 'authorization decided' : 'authorization skipped', { ...attributes, ...outcome });
      return outcome;
    });
  }

  private async decide(accepted: ExecutionAcceptedData, causationId: string): Promise<AuthorizationOutcome> {
    const { executionId } = accepted;
    const agentProcess = effectiveAgentProcess(accepted.actor, accepted.agentProcess);
    // Everything the ladder reads, in one round trip: the execution, the vault and the actor's session.
    const [loaded, vault, session] = await this.deps.commands.loadAll([
      executionStream(executionId),
      vaultStream(),
      sessionStream(accepted.actor, agentProcess),
    ]);
    if (loaded.state.status !== 'accepted') return { decided: false, reason: `execution is ${loaded.state.status}` };
    const facts = loaded.state.facts;
    const cause: EventCause = { causationId, actor: AUTHORIZATION_SERVICE, ...currentTraceContext() };
    // The stored acceptance is the truth; a message that named another session only costs a read of the right one.
    const factsProcess = effectiveAgentProcess(facts.actor, facts.agentProcess);
    const sameSession = facts.actor === accepted.actor && factsProcess === agentProcess;
    const { decision, grantRecorded } = await this.decideRecordingGrant(
      facts,
      factsProcess,
      vault.state,
      sameSession ? session : undefined,
      cause,
    );
    // A per-use call of a run whose approver granted the campaign is approved from that grant (DESIGN.md §7).
    if (decision.rung === 'per_use_approval' && decision.command.type === 'RequestApproval' && facts.run) {
      if (await approveFromCampaign(this.deps.commands, facts, decision.command, cause)) {
        this.deps.onAppended?.();
        countAuthorization(this.deps.contracts, facts.tool, 'campaign_approval');
        return {
          decided: true,
          rung: 'campaign_approval',
          grantRecorded,
          appended: ['ApprovalRequested', 'ApprovalGranted', 'ExecutionAuthorized'],
        };
      }
    }
    const handled = await this.deps.commands.handle(
      executionStream(executionId),
      (current, now) => (current.state.status === 'accepted' ? { ...decision.command, metadata: { now } } : null),
      cause,
      // Decided on the stream as loaded above; had anyone appended since, the append conflicts and reads it again.
      { known: loaded },
    );
    if (grantRecorded || handled.appended.length > 0) this.deps.onAppended?.();
    if (handled.appended.length > 0) {
      countAuthorization(this.deps.contracts, facts.tool, decision.rung);
      countApprovalEvents(this.deps.contracts, handled);
    }
    return { decided: true, rung: decision.rung, grantRecorded, appended: handled.appended.map((e) => e.type) };
  }

  /** Runs the ladder; when it grants a session, records the grant first. A lost race means another replica granted it: decide again on that grant. */
  private async decideRecordingGrant(
    facts: ExecutionFacts,
    agentProcess: string,
    vault: VaultState,
    session: LoadedOf<SessionStream> | undefined,
    cause: EventCause,
  ): Promise<{ decision: AuthorizationDecision; grantRecorded: boolean }> {
    let decision: AuthorizationDecision | undefined;
    const handled = await this.deps.commands.handle(
      sessionStream(facts.actor, agentProcess),
      (session, now) => {
        decision = decideAuthorization({
          execution: facts,
          contractApproval: this.deps.contracts.get(facts.tool)?.approval ?? null,
          vault,
          actor: this.deps.directory.actor(facts.actor),
          sessionGrant: session.state,
          policyVersion: this.deps.directory.policyVersion,
          approvalTtlMs: this.deps.approvalTtlMs,
          now: this.clock(),
        });
        return decision.grant ? { type: 'GrantSession', data: decision.grant, metadata: { now } } : null;
      },
      { ...cause, correlationId: facts.executionId },
      {
        // Read with the execution; a lost race reads the session again (and decides again on it).
        ...(session ? { known: session } : {}),
        onConflict: () =>
          this.deps.log('info', 'session grant lost the race: another replica granted it', {
            executionId: facts.executionId,
            actor: facts.actor,
            agentProcess,
          }),
      },
    );
    if (!decision) throw new Error('unreachable: the session command function always decides');
    return { decision, grantRecorded: handled.appended.length > 0 };
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
