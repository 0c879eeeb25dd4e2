/** Recorded execution histories, for contract tests: every consumer must still fold and handle them. */
import approvalGrantedRedispatched from '../test/fixtures/histories/approval-granted-redispatched.json';
import awaitingApproval from '../test/fixtures/histories/awaiting-approval.json';
import completedUndeliveredRetry from '../test/fixtures/histories/completed-undelivered-retry.json';
import deniedRetry from '../test/fixtures/histories/denied-retry.json';
import happyPath from '../test/fixtures/histories/happy-path.json';
import sshNeedsReviewResolved from '../test/fixtures/histories/ssh-needs-review-resolved.json';
import unknownOutcomeSettled from '../test/fixtures/histories/unknown-outcome-settled.json';

export const recordedHistories: Readonly<Record<string, readonly unknown[]>> = {
  'approval-granted-redispatched': approvalGrantedRedispatched as unknown[],
  'awaiting-approval': awaitingApproval as unknown[],
  'completed-undelivered-retry': completedUndeliveredRetry as unknown[],
  'denied-retry': deniedRetry as unknown[],
  'happy-path': happyPath as unknown[],
  'ssh-needs-review-resolved': sshNeedsReviewResolved as unknown[],
  'unknown-outcome-settled': unknownOutcomeSettled as unknown[],
};
