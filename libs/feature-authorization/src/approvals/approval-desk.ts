import { type Admin } from '@onceport/config';
import { type ExecutionCommand, IllegalTransitionError, type ToolContract, vaultLockedReason } from '@onceport/domain';
import {
  type CommandHandler,
  type EventCause,
  type LoadedExecution,
  type Queryable,
  countsAgainstEvent,
  executionStream,
  sessionStream,
  vaultStream,
} from '@onceport/event-store';
import { effectiveApproval, executionIdOfApproval } from '../authorize-execution/decide-authorization';
import { countApprovalEvents } from '../metrics/authorization-metrics';
import { type Log } from '../shared/log';
import { lapsedApprovals, recentApprovals, undecidedApprovals } from './approval-queries';
import { type ApprovalStatus, type ApproverView, approverViewOf } from './approver-view';
import { type ExecutionsReadModel } from './executions-read-model';
import { type UnfoldableExecutions } from './unfoldable-executions';
import { Problem } from '@onceport/service-kit';

export type ApprovalFilter = ApprovalStatus | 'all';
export type ApprovalDecision = 'grant' | 'reject';

export interface ApprovalDeskDependencies {
  readonly db: Queryable;
  /** Where approvals are looked up; caught up before every lookup. */
  readonly readModel: ExecutionsReadModel;
  readonly commands: CommandHandler;
  readonly contracts: ReadonlyMap<string, ToolContract>;
  /** The actors file's version now: recorded on a session grant a human gives. */
  readonly policyVersion: () => string;
  /** Whether the actors file, as loaded now, still lets the actor call the tool. */
  readonly mayUse: (actor: string, tool: string) => boolean;
  readonly log: Log;
  /** Where an execution that cannot be folded is logged and counted, so it is skipped alone. */
  readonly unfoldable: UnfoldableExecutions;
  readonly clock?: () => Date;
  readonly onAppended?: () => void;
}

const DECIDED_AS: Record<ApprovalDecision, ApprovalStatus> = { grant: 'granted', reject: 'rejected' };

/**
 * The approver's side of DESIGN.md §6: lists approvals with the original record, and records a
 * human's grant or rejection as events with who and why. Deciding again the same way answers the
 * current view (an operator's retry must not fail); the other way, or after expiry, is a 409.
 */
export class ApprovalDesk {
  private readonly clock: () => Date;

  constructor(private readonly deps: ApprovalDeskDependencies) {
    this.clock = deps.clock ?? (() => new Date());
  }

  /**
   * Oldest request first. Pending ones are the oldest `limit` undecided; the others the most recent
   * `limit` of that status, chosen by status in the read model. Each is shown from its stream, and
   * one whose status changed since the read model was caught up is left out — as is one whose
   * stream cannot be folded (logged and counted): the others are still listed.
   */
  async list(filter: ApprovalFilter, limit: number): Promise<ApproverView[]> {
    await this.deps.readModel.catchUp();
    const ids =
      filter === 'pending'
        ? await undecidedApprovals(this.deps.db, limit)
        : await recentApprovals(this.deps.db, filter, limit, this.clock());
    const views = await Promise.all(ids.map((id) => this.listedViewOf(id)));
    return views
      .filter((view): view is ApproverView => view !== null && (filter === 'all' || view.status === filter))
      .sort((a, b) => Date.parse(a.requested_at) - Date.parse(b.requested_at));
  }

  /**
   * Ends every approval whose deadline has passed; returns how many this call ended. Each on its
   * own: one that fails (an execution that cannot be folded) is logged and counted, and the later
   * ones still expire.
   */
  async expireLapsed(cause: EventCause, batch = 200): Promise<number> {
    await this.deps.readModel.catchUp();
    let ended = 0;
    for (const { executionId, approvalId } of await lapsedApprovals(this.deps.db, batch)) {
      try {
        if (await this.expire(executionId, approvalId, { ...cause, causationId: `${cause.causationId}:${approvalId}` })) ended++;
      } catch (error) {
        await this.deps.unfoldable.skipped(executionId, 'approval expiry', error);
      }
    }
    return ended;
  }

  /** Folds again the executions an operator asked the quarantine to retry (the expiry sweep calls it each pass). */
  retryUnfoldable(): Promise<number> {
    return this.deps.unfoldable.retryRequested();
  }

  async get(approvalId: string): Promise<ApproverView> {
    return this.withRepeated((await this.find(approvalId)).view);
  }

  async decide(approvalId: string, decision: ApprovalDecision, admin: Admin, reason: string, cause: EventCause): Promise<ApproverView> {
    const { executionId, view } = await this.find(approvalId);
    if (view.status === DECIDED_AS[decision]) {
      if (decision === 'grant') await this.grantSessionIfAsked(view, cause);
      return view;
    }
    await this.refuseUnlessPending(view, decision);
    const command = (now: Date): ExecutionCommand =>
      decision === 'grant'
        ? { type: 'GrantApproval', data: { approvalId, approver: admin.id, reason }, metadata: { now } }
        : { type: 'RejectApproval', data: { approvalId, approver: admin.id, reason }, metadata: { now } };
    try {
      const handled = await this.deps.commands.handle(executionStream(executionId), (_loaded, now) => command(now), {
        ...cause,
        actor: admin.id,
      });
      countApprovalEvents(this.deps.contracts, handled);
    } catch (error) {
      if (!(error instanceof IllegalTransitionError)) throw error;
      // Someone decided (or the deadline passed) between our read and our append: answer from what is recorded now.
      const { view: now } = await this.find(approvalId);
      if (now.status === DECIDED_AS[decision]) return now;
      await this.refuseUnlessPending(now, decision);
      throw new Problem(409, error.code, 'Decision refused', error.message);
    }
    this.deps.onAppended?.();
    const decided = await this.get(approvalId);
    this.deps.log('info', `approval ${DECIDED_AS[decision]}`, { approvalId, executionId, by: admin.id, kind: decided.kind });
    if (decision === 'grant' && (await this.grantSessionIfAsked(decided, cause))) await this.releaseSessionSiblings(decided, admin, cause);
    return decided;
  }

  /** Ends a lapsed approval as `approval_expired`; false when it was decided, or is not due yet. */
  async expire(executionId: string, approvalId: string, cause: EventCause): Promise<boolean> {
    try {
      const handled = await this.deps.commands.handle(
        executionStream(executionId),
        (_loaded, now) => ({ type: 'ExpireApproval', data: { approvalId }, metadata: { now } }),
        cause,
      );
      if (handled.appended.length > 0) {
        this.deps.onAppended?.();
        countApprovalEvents(this.deps.contracts, handled);
        this.deps.log('info', 'approval expired', { approvalId, executionId });
      }
      return handled.appended.length > 0;
    } catch (error) {
      if (error instanceof IllegalTransitionError) return false;
      throw error;
    }
  }

  private async refuseUnlessPending(view: ApproverView, decision: ApprovalDecision): Promise<void> {
    if (view.status === 'expired') {
      // Lapsed but not yet swept: record the expiry now, so the agent learns it too.
      await this.expire(view.execution_id, view.approval_id, {
        causationId: `admin:expire:${view.approval_id}`,
        actor: 'svc:authorization',
      });
      throw new Problem(
        409,
        'approval_expired',
        'Approval expired',
        `Approval ${view.approval_id} expired at ${view.expires_at}; the execution is denied and nothing was sent.`,
      );
    }
    if (view.status !== 'pending') {
      throw new Problem(
        409,
        'approval_already_decided',
        'Approval already decided',
        `Approval ${view.approval_id} was ${view.status} by ${view.decided_by ?? 'unknown'} at ${view.decided_at ?? 'unknown'}; it cannot be ${DECIDED_AS[decision]} now.`,
      );
    }
    if (decision === 'grant' && !this.deps.mayUse(view.actor, view.tool)) {
      // A human yes cannot outrank the policy in force now, whatever it was when the approval was asked.
      throw new Problem(
        409,
        'actor_not_allowed',
        'Actor no longer allowed',
        `${view.actor} may not call ${view.tool} under the actors file in force (policy ${this.deps.policyVersion()}; the approval was asked under ${view.policy_version}). Reject the approval.`,
      );
    }
    const vault = decision === 'grant' ? (await this.deps.commands.load(vaultStream())).state : null;
    if (vault?.status === 'locked') {
      throw new Problem(
        409,
        'vault_locked',
        'Vault locked',
        `${vaultLockedReason(vault)} No call may be authorized meanwhile: reject the approval, or unlock the vault first.`,
      );
    }
  }

  /**
   * A granted session approval gives the agent process its session grant, so its next calls don't
   * ask again. True when this call recorded it (a lost race means another request did).
   */
  private async grantSessionIfAsked(view: ApproverView, cause: EventCause): Promise<boolean> {
    if (view.kind !== 'session' || view.decided_by === null) return false;
    const grantedBy = view.decided_by;
    const handled = await this.deps.commands.handle(
      sessionStream(view.actor, view.agent_process),
      (_session, now) => {
        const at = this.clock();
        const policyVersion = this.deps.policyVersion();
        const grant = {
          actor: view.actor,
          agentProcess: view.agent_process,
          basis: 'human' as const,
          grantedBy,
          policyVersion,
          grantedAt: at.toISOString(),
        };
        return { type: 'GrantSession', data: grant, metadata: { now } };
      },
      { ...cause, correlationId: view.execution_id, actor: grantedBy },
    );
    return handled.appended.length > 0;
  }

  /**
   * Calls the same process made while it waited for its session grant are covered by that grant,
   * as they would be had they come a moment later; a per-use call still waits for its own human.
   */
  private async releaseSessionSiblings(granted: ApproverView, admin: Admin, cause: EventCause): Promise<void> {
    const reason = `Covered by the session grant of ${granted.agent_process}, given with approval ${granted.approval_id}.`;
    await this.deps.readModel.catchUp();
    for (const id of await undecidedApprovals(this.deps.db, 1000)) {
      const loaded = await this.loadOrSkip(id, 'session siblings');
      if (!loaded) continue;
      const view = this.viewOf(loaded);
      if (
        !view ||
        view.status !== 'pending' ||
        view.kind !== 'session' ||
        view.actor !== granted.actor ||
        view.agent_process !== granted.agent_process
      )
        continue;
      if (!this.deps.mayUse(view.actor, view.tool)) continue;
      if (
        loaded.state.status === 'none' ||
        effectiveApproval(loaded.state.facts.approval, this.deps.contracts.get(view.tool)?.approval ?? null) === 'per_use'
      )
        continue;
      try {
        const handled = await this.deps.commands.handle(
          executionStream(id),
          (_loaded, now) => ({
            type: 'GrantApproval',
            data: { approvalId: view.approval_id, approver: admin.id, reason },
            metadata: { now },
          }),
          { ...cause, actor: admin.id },
        );
        countApprovalEvents(this.deps.contracts, handled);
        this.deps.log('info', 'approval granted with its session', {
          approvalId: view.approval_id,
          executionId: id,
          by: admin.id,
          sessionApproval: granted.approval_id,
        });
      } catch (error) {
        // Decided or lapsed meanwhile: it stays as recorded.
        if (!(error instanceof IllegalTransitionError)) throw error;
      }
    }
    this.deps.onAppended?.();
  }

  /** One item of the list; null for an execution that cannot be folded (logged and counted), so the others are still listed. */
  private async listedViewOf(executionId: string): Promise<ApproverView | null> {
    const loaded = await this.loadOrSkip(executionId, 'approvals list');
    const view = loaded ? this.viewOf(loaded) : null;
    return view && this.withRepeated(view);
  }

  /** The execution a call repeats, as it stands: what the approver weighs a second effect against. */
  private async withRepeated(view: ApproverView): Promise<ApproverView> {
    if (!view.repeats) return view;
    const earlier = await this.loadOrSkip(view.repeats.execution_id, 'repeated execution');
    if (!earlier || earlier.state.status === 'none') return view;
    const state = earlier.state;
    const completedAt = 'completedAt' in state && typeof state.completedAt === 'string' ? state.completedAt : null;
    return {
      ...view,
      repeats: { ...view.repeats, state: state.status, attempt: state.facts.run?.attempt ?? null, completed_at: completedAt },
    };
  }

  /**
   * The execution folded, or null when its stream cannot be (skipped, logged and counted). An
   * outage is no item's fault and fails every item alike: it is thrown, so a list is never
   * answered short as if it were whole.
   */
  private async loadOrSkip(executionId: string, doing: string): Promise<LoadedExecution | null> {
    try {
      return await this.deps.commands.load(executionStream(executionId));
    } catch (error) {
      if (!countsAgainstEvent(error)) throw error;
      await this.deps.unfoldable.skipped(executionId, doing, error);
      return null;
    }
  }

  private async find(approvalId: string): Promise<{ executionId: string; view: ApproverView }> {
    const executionId = executionIdOfApproval(approvalId);
    const view = executionId ? this.viewOf(await this.deps.commands.load(executionStream(executionId))) : null;
    if (!executionId || !view || view.approval_id !== approvalId) {
      throw new Problem(404, 'approval_not_found', 'Approval not found', `There is no approval ${approvalId}.`);
    }
    return { executionId, view };
  }

  private viewOf(loaded: LoadedExecution): ApproverView | null {
    const tool = loaded.state.status === 'none' ? undefined : this.deps.contracts.get(loaded.state.facts.tool);
    return approverViewOf(loaded, tool, this.clock());
  }
}
