import {
  type ApprovalMode,
  type AuthorizationBasis,
  type CanonicalOperationRecord,
  type Channel,
  type DenialCode,
  type EffectClass,
  type ExecutionStatus,
  type Fingerprint,
  type JsonValue,
  type ProbeVerdict,
  type RepeatedExecution,
  type RequestCorrelation,
  type RunReference,
  type ResultReference,
  type ReviewResolution,
  type Settlement,
  type Transport,
} from '@onceport/contracts';

/** What the execution is, fixed at acceptance. */
export interface ExecutionFacts {
  readonly executionId: string;
  readonly tool: string;
  readonly channel: Channel;
  readonly actor: string;
  readonly agentProcess: string | null;
  readonly intentScope: string;
  readonly fingerprint: Fingerprint;
  readonly record: CanonicalOperationRecord;
  readonly arguments: Readonly<Record<string, JsonValue>>;
  readonly effectClass: EffectClass;
  readonly approval: ApprovalMode;
  readonly correlationWindowEndsAt: string;
  readonly ledgerRetentionEndsAt: string | null;
  readonly clientIdempotencyKey: string | null;
  readonly acceptedAt: string;
  /** The run and attempt that asked for it (DESIGN.md §7); null outside runs. */
  readonly run: RunReference | null;
  /** The earlier execution of the same intent it repeats, if any. */
  readonly repeats: RepeatedExecution | null;
}

/** How the latest dispatch attempt ended; lets a redelivered outcome command be told apart from a new one. */
export type AttemptEnd =
  | { readonly attempt: number; readonly how: 'failed_before_send' | 'observed' | 'unknown' }
  /** `reason`: how it was settled (a probe's finding, a reviewer's verdict), for the agent's answer. */
  | { readonly attempt: number; readonly how: 'settled'; readonly settlement: Settlement; readonly reason: string };

export interface Authorization {
  readonly basis: AuthorizationBasis;
  readonly policyVersion: string;
  readonly authorizedAt: string;
}

export interface Delivery {
  readonly transport: Transport;
  readonly replay: boolean;
  readonly correlation: RequestCorrelation;
  readonly deliveredAt: string;
}

/** What the stream has accumulated so far, carried through every state. */
export interface ExecutionProgress {
  /** Dispatch attempts started so far; 0 until the first DispatchStarted. The next one is attempt + 1. */
  readonly attempt: number;
  /** Shown to approvers and agents answering a retry (DESIGN.md §6: "first dispatch time"). */
  readonly firstDispatchedAt: string | null;
  readonly approvalId: string | null;
  /** Set by ExecutionAuthorized (or ApprovalGranted), kept through dispatch so a re-dispatch still knows its grounds. */
  readonly authorization: Authorization | null;
  readonly lastAttemptEnd: AttemptEnd | null;
  readonly lastTargetStatus: number | null;
  readonly lastResult: ResultReference | null;
  readonly delivered: boolean;
  readonly lastDelivery: Delivery | null;
  readonly retriesAttached: number;
  /** Set once a reviewer resolved a `needs_review`. */
  readonly reviewResolution: ReviewResolution | null;
}

interface Known<Status extends ExecutionStatus> {
  readonly status: Status;
  readonly facts: ExecutionFacts;
  readonly progress: ExecutionProgress;
}

export interface NoExecution {
  readonly status: 'none';
}
export type AcceptedState = Known<'accepted'>;
export interface AwaitingApprovalState extends Known<'awaiting_approval'> {
  readonly approvalRequest: {
    readonly approvalId: string;
    readonly policyVersion: string;
    readonly reason: string;
    readonly expiresAt: string;
    readonly requestedAt: string;
  };
}
/** Ready to dispatch; `progress.authorization` says on what grounds. */
export type AuthorizedState = Known<'authorized'>;
export interface DeniedState extends Known<'denied'> {
  readonly denial: { readonly code: DenialCode; readonly reason: string; readonly deniedAt: string };
}
export interface DispatchedState extends Known<'dispatched'> {
  readonly lease: { readonly attempt: number; readonly dispatcherId: string; readonly leaseExpiresAt: string; readonly startedAt: string };
}
export interface DispatchedUnknownState extends Known<'dispatched_unknown'> {
  readonly unknown: {
    readonly attempt: number;
    readonly reason: string;
    readonly detectedAt: string;
    readonly probes: number;
    readonly lastVerdict: ProbeVerdict | null;
    /** The unfinished task an MCP upstream answered with: the reconciler's probe (`tasks/get`). */
    readonly upstreamTaskId: string | null;
  };
}
export interface CompletedResultNotDeliveredState extends Known<'completed_result_not_delivered'> {
  readonly completedAt: string;
}
export interface CompletedState extends Known<'completed'> {
  readonly completedAt: string;
}
export interface FailedState extends Known<'failed'> {
  readonly failure: { readonly reason: string; readonly failedAt: string };
}
export interface NeedsReviewState extends Known<'needs_review'> {
  readonly review: { readonly reason: string; readonly since: string };
}
export interface RevertedState extends Known<'reverted'> {
  readonly reversal: { readonly by: string; readonly reason: string; readonly revertedAt: string; readonly from: ExecutionStatus };
}
export interface ExpiredState extends Known<'expired'> {
  readonly expiry: { readonly expiredAt: string; readonly from: ExecutionStatus };
}

/** An execution as its stream says it is now; `status` is the derived state of DESIGN.md §4. */
export type ExecutionState =
  | NoExecution
  | AcceptedState
  | AwaitingApprovalState
  | AuthorizedState
  | DeniedState
  | DispatchedState
  | DispatchedUnknownState
  | CompletedResultNotDeliveredState
  | CompletedState
  | FailedState
  | NeedsReviewState
  | RevertedState
  | ExpiredState;

/** Any state of an execution that has been accepted. */
export type KnownExecutionState = Exclude<ExecutionState, NoExecution>;

/** The state of a stream with no events. */
export function initialState(): ExecutionState {
  return { status: 'none' };
}
