import {
  type AuthorizationBasis,
  type CanonicalOperationRecord,
  type Channel,
  type DenialCode,
  type EffectClass,
  type Fingerprint,
  type JsonValue,
  type ApprovalMode,
  type ApprovalKind,
  type ProbeVerdict,
  type RepeatedExecution,
  type RequestCorrelation,
  type RunReference,
  type ResultReference,
  type ReviewResolution,
  type Settlement,
  type Transport,
} from '@onceport/contracts';

/** Time enters the domain here and nowhere else: deciders never read a clock. */
export interface CommandMetadata {
  readonly now: Date;
}

export interface Command<Type extends string, Data> {
  readonly type: Type;
  readonly data: Data;
  readonly metadata: CommandMetadata;
}

/** Intake accepted an operation. Windows are durations from the tool contract; the decider anchors them at `now`. */
export type AcceptExecution = Command<
  'AcceptExecution',
  {
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
    readonly correlationWindowMs: number;
    /** null when the tool keeps no ledger (DESIGN.md §5). */
    readonly ledgerRetentionMs: number | null;
    readonly clientIdempotencyKey: string | null;
    /** Omitted by callers outside runs. */
    readonly run?: RunReference | null;
    readonly repeats?: RepeatedExecution | null;
  }
>;
export type AttachRetry = Command<
  'AttachRetry',
  {
    readonly correlation: RequestCorrelation;
    readonly agentProcess: string | null;
    readonly clientIdempotencyKey: string | null;
    /** The run and attempt of the retry, when it named one. */
    readonly run?: RunReference | null;
  }
>;
export type RequestApproval = Command<
  'RequestApproval',
  {
    readonly approvalId: string;
    readonly policyVersion: string;
    readonly reason: string;
    readonly expiresInMs: number;
    /** Recorded on the event so the approver sees what a grant stands for; omitted by older callers. */
    readonly kind?: ApprovalKind;
  }
>;
export type GrantApproval = Command<'GrantApproval', { readonly approvalId: string; readonly approver: string; readonly reason: string }>;
export type RejectApproval = Command<'RejectApproval', { readonly approvalId: string; readonly approver: string; readonly reason: string }>;
/** Nobody decided in time: the execution ends denied (`approval_expired`), bound to the approval that lapsed. */
export type ExpireApproval = Command<'ExpireApproval', { readonly approvalId: string }>;
/** Approval-based authorization goes through GrantApproval, so the approval stays the evidence. */
export type AuthorizeExecution = Command<
  'AuthorizeExecution',
  { readonly basis: Exclude<AuthorizationBasis, 'approval'>; readonly policyVersion: string }
>;
/** A rejected approval goes through RejectApproval, so the approver stays on record. */
export type DenyExecution = Command<'DenyExecution', { readonly code: Exclude<DenialCode, 'approval_rejected'>; readonly reason: string }>;
export type StartDispatch = Command<'StartDispatch', { readonly dispatcherId: string; readonly leaseMs: number }>;
export type FailDispatchBeforeSend = Command<
  'FailDispatchBeforeSend',
  { readonly attempt: number; readonly reason: string; readonly retryable: boolean }
>;
export type ObserveOutcome = Command<
  'ObserveOutcome',
  { readonly attempt: number; readonly targetStatus: number; readonly succeeded: boolean; readonly result: ResultReference | null }
>;
/** `upstreamTaskId`: the task an MCP upstream answered with and had not finished (the reconciler polls it). */
export type MarkOutcomeUnknown = Command<
  'MarkOutcomeUnknown',
  { readonly attempt: number; readonly reason: string; readonly upstreamTaskId?: string }
>;
export type RecordProbe = Command<
  'RecordProbe',
  { readonly attempt: number; readonly probeNumber: number; readonly verdict: ProbeVerdict; readonly detail: string }
>;
export type SettleOutcome = Command<
  'SettleOutcome',
  {
    readonly attempt: number;
    readonly settlement: Settlement;
    readonly reason: string;
    readonly targetStatus: number | null;
    readonly result: ResultReference | null;
  }
>;
export type RecordDelivery = Command<
  'RecordDelivery',
  { readonly transport: Transport; readonly replay: boolean; readonly correlation: RequestCorrelation }
>;
export type ResolveReview = Command<
  'ResolveReview',
  { readonly resolution: ReviewResolution; readonly reviewer: string; readonly reason: string }
>;
export type RevertExecution = Command<'RevertExecution', { readonly by: string; readonly reason: string }>;
export type ExpireCorrelation = Command<'ExpireCorrelation', Readonly<Record<string, never>>>;

export type ExecutionCommand =
  | AcceptExecution
  | AttachRetry
  | RequestApproval
  | GrantApproval
  | RejectApproval
  | ExpireApproval
  | AuthorizeExecution
  | DenyExecution
  | StartDispatch
  | FailDispatchBeforeSend
  | ObserveOutcome
  | MarkOutcomeUnknown
  | RecordProbe
  | SettleOutcome
  | RecordDelivery
  | ResolveReview
  | RevertExecution
  | ExpireCorrelation;

export type ExecutionCommandType = ExecutionCommand['type'];
