import { ApprovalKind, CanonicalOperationRecord, ExecutionId, ExecutionStatus, IsoTimestamp, RunId } from '@onceport/contracts';
import { z } from 'zod';
import { named } from '../../json-schema/component-schemas';

/** What every admin decision carries: the operator's words, recorded with their identity. */
export const ReasonRequest = named(
  'ReasonRequest',
  z.object({ reason: z.string().min(1).max(1000).regex(/\S/).describe('Why: recorded on the stream with the admin id.') }),
  'input',
);

const OperationTarget = z
  .union([
    z.object({ channel: z.literal('http'), method: z.string(), url: z.string() }),
    z.looseObject({ channel: z.literal('ssh'), host: z.string(), port: z.int(), user: z.string() }),
    z.looseObject({ channel: z.literal('mcp') }),
  ])
  .describe('Where the call goes.');

export const ApproverView = named(
  'ApproverView',
  z
    .object({
      approval_id: z.string(),
      execution_id: ExecutionId,
      status: z.enum(['pending', 'granted', 'rejected', 'expired']),
      kind: ApprovalKind,
      actor: z.string(),
      agent_process: z.string(),
      tool: z.string(),
      target: OperationTarget,
      record: CanonicalOperationRecord.describe('The canonical operation record: sensitive arguments as HMACs, generated text left out.'),
      fingerprint: z.string(),
      policy_version: z.string(),
      reason: z.string().describe('Why approval is needed.'),
      requested_at: IsoTimestamp,
      expires_at: IsoTimestamp,
      decided_by: z.string().nullable(),
      decided_at: IsoTimestamp.nullable(),
      decision_reason: z.string().nullable(),
      first_dispatched_at: IsoTimestamp.nullable(),
      known_outcome: z.object({ state: ExecutionStatus, target_status: z.int().nullable() }).nullable(),
      retries_attached: z.int().min(0),
      retry_note: z.string(),
      run: z.object({ id: RunId, attempt: z.int().min(1), trigger: z.string() }).nullable(),
      repeats: z
        .object({
          execution_id: ExecutionId,
          deliberate: z.boolean(),
          reason: z.string().nullable(),
          state: ExecutionStatus.optional(),
          attempt: z.int().nullable().optional(),
          completed_at: IsoTimestamp.nullable().optional(),
        })
        .nullable()
        .describe('The earlier execution of the same intent this one repeats.'),
    })
    .describe("The approver's view: the original record, never a retry's wording."),
);

export const ApprovalList = named('ApprovalList', z.object({ approvals: z.array(ApproverView.schema) }));

export const CampaignGrantRequest = named(
  'CampaignGrantRequest',
  z.object({
    count: z.int().min(1).max(100_000).describe("How many of the run's calls of the tool this grant approves."),
    reason: z.string().min(1).max(1000).regex(/\S/),
  }),
  'input',
);

export const CampaignView = named(
  'CampaignView',
  z.object({
    run_id: RunId,
    tool: z.string(),
    granted: z.int().min(0),
    used: z.int().min(0),
    remaining: z.int().min(0),
    grants: z.array(z.object({ by: z.string(), reason: z.string(), count: z.int().min(1), granted_at: IsoTimestamp })),
    waiting: z.array(ApproverView.schema).describe("The run's calls of the tool waiting for a human now, each with its record."),
  }),
);

const VaultShape = {
  status: z.enum(['locked', 'unlocked']),
  by: z.string().nullable(),
  reason: z.string().nullable(),
  since: IsoTimestamp.nullable(),
  version: z.int().min(0).describe('The vault stream version.'),
};

export const VaultView = named('VaultView', z.object(VaultShape));

export const VaultChange = named(
  'VaultChange',
  z.object({ ...VaultShape, changed: z.boolean().describe('false when the vault already was so (a panic-button retry never fails).') }),
);

export const RevertView = named(
  'RevertView',
  z.object({ execution_id: ExecutionId, state: z.literal('reverted'), reverted_by: z.string().describe('Who reverted it first.') }),
);

export const QuarantineEntry = named(
  'QuarantineEntry',
  z.object({
    subscriber: z.string(),
    event_id: z.uuid(),
    stream_id: z.string(),
    global_position: z.string(),
    event_type: z.string(),
    status: z.enum(['failing', 'quarantined', 'retry_requested', 'retrying', 'resolved', 'released']),
    attempts: z.int().min(0),
    last_error: z.string(),
    first_attempt_at: IsoTimestamp,
    last_attempt_at: IsoTimestamp,
    quarantined_at: IsoTimestamp.nullable(),
    retry_requested_by: z.string().nullable(),
    retry_requested_at: IsoTimestamp.nullable(),
    closed_by: z.string().nullable(),
    close_reason: z.string().nullable(),
    closed_at: IsoTimestamp.nullable(),
  }),
);

export const QuarantineList = named('QuarantineList', z.object({ entries: z.array(QuarantineEntry.schema) }));

export const ReviewList = named(
  'ReviewList',
  z.object({
    reviews: z.array(
      z.object({
        execution_id: ExecutionId,
        actor: z.string(),
        tool: z.string(),
        record: CanonicalOperationRecord,
        state: z.literal('needs_review'),
        since: IsoTimestamp,
        reason: z.string().describe('Why machines could not settle it.'),
        attempts: z.int().min(0).describe('Dispatch attempts started.'),
        last_probe: z.object({ probe_number: z.int().min(1), verdict: z.string(), detail: z.string(), probed_at: IsoTimestamp }).nullable(),
      }),
    ),
  }),
);

export const ResolveRequest = named(
  'ResolveRequest',
  z.object({ resolution: z.enum(['applied', 'not_applied']), reason: z.string().min(1).max(1000) }),
  'input',
);

export const Resolved = named('Resolved', z.object({ execution_id: ExecutionId, state: ExecutionStatus, resolved_by: z.string() }));
