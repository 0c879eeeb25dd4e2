import { type Actor, actorMayUse } from '@onceport/config';
import { type ApprovalMode, type SessionGrantedData } from '@onceport/contracts';
import {
  type AuthorizeExecution,
  type DenyExecution,
  type ExecutionFacts,
  type RequestApproval,
  type SessionGrant,
  type VaultState,
  effectiveAgentProcess,
  vaultLockedReason,
} from '@onceport/domain';

/** Who decides automatic session grants, as recorded in `SessionGranted.grantedBy` and event metadata. */
export const AUTHORIZATION_SERVICE = 'svc:authorization';

export interface AuthorizationInput {
  /** The execution as accepted (its stream folded). */
  readonly execution: Pick<ExecutionFacts, 'executionId' | 'tool' | 'actor' | 'agentProcess' | 'approval'>;
  /** The tool contract's approval mode as configured now; null when the tool is no longer declared. */
  readonly contractApproval: ApprovalMode | null;
  readonly vault: VaultState;
  /** The actor's entry in the actors file; null when it has none. */
  readonly actor: Actor | null;
  /** The agent process's current grant; null when it has none. */
  readonly sessionGrant: SessionGrant | null;
  readonly policyVersion: string;
  readonly approvalTtlMs: number;
  readonly now: Date;
}

/** Which rung of the ladder decided (DESIGN.md §6); logged and put on the span. */
export type AuthorizationRung =
  | 'vault_locked'
  | 'actor_not_allowed'
  | 'session_approval'
  | 'per_use_approval'
  /** A per-use call approved from its run's campaign grant. */
  | 'campaign_approval'
  | 'authorized';

export interface AuthorizationDecision {
  readonly rung: AuthorizationRung;
  /** A session grant to record before the command; set when this decision grants one automatically. */
  readonly grant: SessionGrantedData | null;
  readonly command: AuthorizeExecution | DenyExecution | RequestApproval;
}

type Verdict = Omit<AuthorizationDecision, 'grant'>;

/**
 * The decision ladder, pure: vault → actor policy → session grant → per-use approval → authorize.
 * The first rung that objects decides. An automatic session grant is not an objection: it is
 * recorded and the ladder goes on, and the authorization it leads to names it as its basis.
 *
 * @example const { grant, command } = decideAuthorization({ execution: state.facts, vault, actor, sessionGrant, … });
 */
export function decideAuthorization(input: AuthorizationInput): AuthorizationDecision {
  const { execution, vault, actor, now } = input;
  if (vault.status === 'locked') return { ...deny(input, 'vault_locked', vaultLockedReason(vault)), grant: null };
  if (!actorMayUse(actor, execution.tool)) return { ...deny(input, 'actor_not_allowed', notAllowedReason(input)), grant: null };

  const agentProcess = effectiveAgentProcess(execution.actor, execution.agentProcess);
  let grant: SessionGrantedData | null = null;
  const perUse = effectiveApproval(execution.approval, input.contractApproval) === 'per_use';
  if (!input.sessionGrant) {
    if (actor?.sessionGrant !== 'automatic') {
      // One approval per execution: the approver sees this very call, so a yes also covers its per-use credential.
      const also = perUse ? ` ${execution.tool} also uses a per-use credential: this approval covers this one call.` : '';
      return {
        ...approval(input, 'session_approval', `New agent process needs a session grant: ${agentProcess} of ${execution.actor}.${also}`),
        grant: null,
      };
    }
    grant = {
      actor: execution.actor,
      agentProcess,
      basis: 'automatic',
      grantedBy: AUTHORIZATION_SERVICE,
      policyVersion: input.policyVersion,
      grantedAt: now.toISOString(),
    };
  }
  if (perUse) {
    return {
      ...approval(input, 'per_use_approval', `${execution.tool} uses a per-use credential: every call needs a human approval.`),
      grant,
    };
  }
  const command: AuthorizeExecution = {
    type: 'AuthorizeExecution',
    data: { basis: grant ? 'session_grant' : 'policy', policyVersion: input.policyVersion },
    metadata: { now },
  };
  return { rung: 'authorized', grant, command };
}

/**
 * The stricter of the mode recorded at acceptance and the contract as configured now: a contract
 * tightened after the call was accepted still applies, and a loosened one can't undo what the
 * execution was accepted under (the decider refuses a policy authorization of a per-use call).
 */
export function effectiveApproval(accepted: ApprovalMode, configured: ApprovalMode | null): ApprovalMode {
  const rank: Record<ApprovalMode, number> = { none: 0, session: 1, per_use: 2 };
  return configured !== null && rank[configured] > rank[accepted] ? configured : accepted;
}

/**
 * One approval per execution comes out of the ladder, so its id is derived from the execution's:
 * a redelivered event that races the first decision asks for the same approval, which the decider
 * recognises, instead of a second one.
 */
export function approvalIdFor(executionId: string): string {
  return `apr_${executionId.replace(/^exe_/, '')}`;
}

/** The execution an approval id belongs to, or null for anything that is not an approval id. */
export function executionIdOfApproval(approvalId: string): string | null {
  return /^apr_[0-9A-HJKMNP-TV-Z]{26}$/.test(approvalId) ? `exe_${approvalId.slice(4)}` : null;
}

function deny(input: AuthorizationInput, code: 'vault_locked' | 'actor_not_allowed', reason: string): Verdict {
  return { rung: code, command: { type: 'DenyExecution', data: { code, reason }, metadata: { now: input.now } } };
}

function approval(input: AuthorizationInput, rung: 'session_approval' | 'per_use_approval', reason: string): Verdict {
  const kind = rung === 'session_approval' ? 'session' : 'per_use';
  const data = {
    approvalId: approvalIdFor(input.execution.executionId),
    policyVersion: input.policyVersion,
    reason,
    expiresInMs: input.approvalTtlMs,
    kind,
  } as const;
  return { rung, command: { type: 'RequestApproval', data, metadata: { now: input.now } } };
}

function notAllowedReason({ execution, actor, policyVersion }: AuthorizationInput): string {
  return actor
    ? `${execution.actor} may not call ${execution.tool}: the actors file (policy ${policyVersion}) does not list it for this actor.`
    : `${execution.actor} is not in the actors file (policy ${policyVersion}): it may call no tool.`;
}
