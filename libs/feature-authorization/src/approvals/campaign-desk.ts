import { type Admin } from '@onceport/config';
import { MAX_CAMPAIGN_COVERED, RunId, runStreamId } from '@onceport/contracts';
import { type CampaignState, type ToolContract, remainingUses } from '@onceport/domain';
import { type CommandHandler, type EventCause, campaignStream, executionStream, runStream } from '@onceport/event-store';
import { Problem } from '@onceport/service-kit';
import { type Log } from '../shared/log';
import { type ApprovalDesk } from './approval-desk';
import { type ApproverView } from './approver-view';
import { approveFromCampaign } from './campaign-approval';

export const MAX_CAMPAIGN_COUNT = 100_000;

/** What an approver sees before granting a run's calls of one tool at once. */
export interface CampaignView {
  readonly run_id: string;
  readonly tool: string;
  readonly granted: number;
  readonly used: number;
  readonly remaining: number;
  readonly grants: readonly { readonly by: string; readonly reason: string; readonly count: number; readonly granted_at: string }[];
  /** The run's calls of the tool waiting for a human now, each with its record (the recipients, the amounts…). */
  readonly waiting: readonly ApproverView[];
}

export interface CampaignDeskDependencies {
  readonly commands: CommandHandler;
  readonly desk: ApprovalDesk;
  readonly contracts: ReadonlyMap<string, ToolContract>;
  readonly log: Log;
  readonly onAppended?: () => void;
}

/**
 * Campaign approval (DESIGN.md §7): an approver grants a run's per-use calls of one tool up to a
 * count, having seen the ones waiting. The grant is evidence on its own stream; the waiting calls
 * are approved from it at once, the later ones as they arrive, each naming the grant and its use.
 */
export class CampaignDesk {
  constructor(private readonly deps: CampaignDeskDependencies) {}

  async view(runId: string, tool: string): Promise<CampaignView> {
    await this.checkTarget(runId, tool);
    const { state } = await this.deps.commands.load(campaignStream(runId, tool));
    return { ...summaryOf(runId, tool, state), waiting: await this.waiting(runId, tool) };
  }

  async grant(runId: string, tool: string, count: number, admin: Admin, reason: string, cause: EventCause): Promise<CampaignView> {
    await this.checkTarget(runId, tool);
    const waiting = await this.waiting(runId, tool);
    const shown = waiting.map((view) => view.execution_id).slice(0, MAX_CAMPAIGN_COVERED);
    await this.deps.commands.handle(
      campaignStream(runId, tool),
      (_loaded, now) => ({ type: 'GrantCampaign', data: { runId, tool, count, by: admin.id, reason, shown }, metadata: { now } }),
      { ...cause, actor: admin.id, correlationId: runStreamId(runId) },
    );
    let approved = 0;
    for (const view of waiting) {
      const { state } = await this.deps.commands.load(executionStream(view.execution_id));
      if (state.status !== 'awaiting_approval') continue;
      if (!(await approveFromCampaign(this.deps.commands, state.facts, null, { ...cause, correlationId: view.execution_id }))) break;
      approved++;
    }
    if (approved > 0) this.deps.onAppended?.();
    this.deps.log('info', 'campaign granted', { runId, tool, count, by: admin.id, approvedWaiting: approved });
    return this.view(runId, tool);
  }

  private async waiting(runId: string, tool: string): Promise<ApproverView[]> {
    const pending = await this.deps.desk.list('pending', 1000);
    return pending.filter((view) => view.run?.id === runId && view.tool === tool && view.kind === 'per_use');
  }

  private async checkTarget(runId: string, tool: string): Promise<void> {
    if (!RunId.safeParse(runId).success) throw new Problem(404, 'run_not_found', 'Run not found', 'not a run id');
    const contract = this.deps.contracts.get(tool);
    if (!contract) throw new Problem(404, 'unknown_tool', 'Unknown tool', `No tool contract declares ${tool.slice(0, 128)}.`);
    if (contract.approval !== 'per_use')
      throw new Problem(
        409,
        'not_per_use',
        'Not a per-use tool',
        `${tool} does not need a human per call (approval: ${contract.approval}); there is nothing to grant.`,
      );
    const { state } = await this.deps.commands.load(runStream(runId));
    if (state.status === 'none') throw new Problem(404, 'run_not_found', 'Run not found', `There is no run ${runId}.`);
  }
}

function summaryOf(runId: string, tool: string, state: CampaignState): Omit<CampaignView, 'waiting'> {
  return {
    run_id: runId,
    tool,
    granted: state.granted,
    used: state.uses.size,
    remaining: remainingUses(state),
    grants: state.grants.map((grant) => ({ by: grant.by, reason: grant.reason, count: grant.count, granted_at: grant.grantedAt })),
  };
}
