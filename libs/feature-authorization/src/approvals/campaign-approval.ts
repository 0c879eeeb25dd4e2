import {
  type ExecutionCommand,
  type ExecutionFacts,
  type ExecutionState,
  type RequestApproval,
  grantOfUse,
  remainingUses,
} from '@onceport/domain';
import { type CommandHandler, type EventCause, type LoadedExecution, campaignStream, executionStream } from '@onceport/event-store';
import { approvalIdFor } from '../authorize-execution/decide-authorization';

/**
 * Approves one per-use call of a run from its campaign grant (DESIGN.md §7): the use is counted on
 * the campaign stream and the approval is granted — asked first when the call is still `accepted` —
 * on the execution stream, in one transaction, so a use is never taken without its approval nor an
 * approval given without its use. The approver of record is the one who granted the campaign.
 * False when no use is left (the call waits for a human of its own) or the call is past approval.
 */
export async function approveFromCampaign(
  commands: CommandHandler,
  facts: ExecutionFacts,
  request: RequestApproval | null,
  cause: EventCause,
): Promise<boolean> {
  const run = facts.run;
  if (!run) return false;
  return commands.transact(async (attempt) => {
    const campaign = campaignStream(run.runId, facts.tool);
    const grants = await attempt.load(campaign);
    const already = grants.state.uses.get(facts.executionId);
    if (already === undefined && remainingUses(grants.state) <= 0) return false;
    const execution = executionStream(facts.executionId);
    let loaded: LoadedExecution = await attempt.load(execution);
    const status = loaded.state.status;
    if (status !== 'accepted' && status !== 'awaiting_approval') return false;
    if (status === 'accepted' && request === null) return false;
    const now = attempt.now();
    const counted = attempt.decide(
      campaign,
      grants,
      { type: 'UseCampaign', data: { executionId: facts.executionId }, metadata: { now } },
      cause,
    );
    const [usedNow] = counted;
    const use = already ?? (usedNow?.type === 'CampaignUseCounted' ? usedNow.data.use : undefined);
    // Uses fall under the grants in the order they were given; a use changes no grant.
    const grant = use === undefined ? null : grantOfUse(grants.state, use);
    if (use === undefined || grant === null) return false;
    if (status === 'accepted' && request) {
      const asked = attempt.decide(execution, loaded, { ...request, metadata: { now } }, cause);
      let state: ExecutionState = loaded.state;
      for (const event of asked) state = execution.kind.decider.evolve(state, event);
      loaded = { state, version: loaded.version + asked.length, events: [...loaded.events, ...asked] };
    }
    const approvalId =
      loaded.state.status === 'awaiting_approval' ? loaded.state.approvalRequest.approvalId : approvalIdFor(facts.executionId);
    const total = grants.state.granted;
    const grantCommand: ExecutionCommand = {
      type: 'GrantApproval',
      data: { approvalId, approver: grant.by, reason: `Campaign grant for run ${run.runId}: use ${use} of ${total}. ${grant.reason}` },
      metadata: { now },
    };
    attempt.decide(execution, loaded, grantCommand, { ...cause, actor: grant.by });
    return true;
  });
}
