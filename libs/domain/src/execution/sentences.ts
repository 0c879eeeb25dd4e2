// Reasons folded into state are shown to operators and, through intake, to agents; one wording
// each, shared by decide and evolve so a replayed stream reads the same as a live one.

export function rejectionSentence(approver: string, reason: string): string {
  return `Rejected by ${approver}${reason.trim() === '' ? '.' : `: ${reason}`}`;
}

export function targetRefusedSentence(targetStatus: number): string {
  return `The target answered ${targetStatus}.`;
}

export function reviewedNotAppliedSentence(reviewer: string, reason: string): string {
  return `${reviewer} found it was not applied: ${reason}`;
}

export function approvalExpiredSentence(approvalId: string, expiresAt: string): string {
  return `Approval ${approvalId} expired at ${expiresAt} without a decision; nothing was sent.`;
}
