import { type AttachAnswer, type NoMatchReason, type RetryMatch } from './retry-match';
import { type IncomingIntent, type RetryCandidate } from './retry-candidate';

type Verdict =
  | { readonly kind: 'attach'; readonly answer: AttachAnswer }
  | { readonly kind: 'ledger_hit' }
  | { readonly kind: 'no'; readonly reason: NoMatchReason };

/**
 * DESIGN.md §5 as a pure function: does this call attach to a prior execution, hit the ledger, or
 * start a new execution? The most recent matching candidate wins.
 *
 * Extension of §5: `needs_review` matches too (answer `awaiting_review`). A retry of an irreversible
 * call whose outcome a human is reviewing must never become a second send.
 *
 * @example matchRetry(await projection.byFingerprints(fps), { fingerprints: fps, actor, intentScope }, now)
 */
export function matchRetry(candidates: readonly RetryCandidate[], incoming: IncomingIntent, now: Date): RetryMatch {
  const reasons: { executionId: string; reason: NoMatchReason }[] = [];
  for (const candidate of newestFirst(candidates)) {
    if (!incoming.fingerprints.includes(candidate.fingerprint)) continue;
    const verdict = judge(candidate, incoming, now.getTime());
    if (verdict.kind === 'attach') return { kind: 'attach', executionId: candidate.executionId, answer: verdict.answer };
    if (verdict.kind === 'ledger_hit') return { kind: 'ledger_hit', executionId: candidate.executionId };
    reasons.push({ executionId: candidate.executionId, reason: verdict.reason });
  }
  return { kind: 'new', reasons };
}

function judge(candidate: RetryCandidate, incoming: IncomingIntent, nowMs: number): Verdict {
  // The same intent by another caller, or for another run, is another operation (DESIGN.md §1–§2).
  if (candidate.actor !== incoming.actor) return { kind: 'no', reason: 'actor_differs' };
  if (candidate.intentScope !== incoming.intentScope) return { kind: 'no', reason: 'intent_scope_differs' };
  const inWindow = nowMs < Date.parse(candidate.correlationWindowEndsAt);
  const inLedger = candidate.ledgerRetentionEndsAt !== null && nowMs < Date.parse(candidate.ledgerRetentionEndsAt);
  switch (candidate.status) {
    case 'accepted':
    case 'authorized':
      return attachIf(inWindow, 'continue');
    case 'awaiting_approval':
      return attachIf(inWindow, 'pending_approval');
    case 'dispatched':
    case 'dispatched_unknown':
      return attachIf(inWindow, 'pending_verification');
    case 'denied':
      return attachIf(inWindow, 'same_denial');
    case 'needs_review':
      return attachIf(inWindow, 'awaiting_review');
    case 'completed_result_not_delivered':
      // Done is done: past the window, a ledger still turns the call into a replay rather than a second send.
      if (inWindow) return { kind: 'attach', answer: 'replay_stored_result' };
      return inLedger ? { kind: 'ledger_hit' } : { kind: 'no', reason: 'outside_correlation_window' };
    case 'completed':
      // Without a ledger, the same call after delivery is a new intent (deploying twice can be deliberate).
      if (candidate.ledgerRetentionEndsAt === null) return { kind: 'no', reason: 'completed_without_ledger' };
      return inLedger ? { kind: 'ledger_hit' } : { kind: 'no', reason: 'outside_ledger_retention' };
    case 'failed':
    case 'reverted':
    case 'expired':
      return { kind: 'no', reason: candidate.status };
    default: {
      const _exhaustive: never = candidate.status;
      return _exhaustive;
    }
  }
}

function attachIf(inWindow: boolean, answer: AttachAnswer): Verdict {
  return inWindow ? { kind: 'attach', answer } : { kind: 'no', reason: 'outside_correlation_window' };
}

/** Newest acceptance first; execution ids are time-ordered, so they break ties within a millisecond. */
function newestFirst(candidates: readonly RetryCandidate[]): RetryCandidate[] {
  return [...candidates].sort(
    (a, b) =>
      Date.parse(b.acceptedAt) - Date.parse(a.acceptedAt) || (a.executionId < b.executionId ? 1 : a.executionId > b.executionId ? -1 : 0),
  );
}
