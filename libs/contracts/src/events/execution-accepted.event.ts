import { z } from 'zod';
import { CanonicalOperationRecord, Channel, EffectClass, ExecutionId, Fingerprint, IsoTimestamp, JsonValue } from '../primitives';
import { RunReference, runIntentScope } from '../runs/run-stream';
import { type Event } from './event';
import { defineEvent } from './event-definition';
import { pastVersion } from './past-version';
import { ApprovalMode } from './shared-data';

/**
 * The earlier execution of the same intent that did not absorb this call (it failed, was denied, its
 * ledger lapsed…) — or, when `deliberate`, the one the agent said it means to repeat, with its reason.
 */
export const RepeatedExecution = z.object({
  executionId: ExecutionId,
  deliberate: z.boolean(),
  reason: z.string().max(500).nullable(),
});
export type RepeatedExecution = z.infer<typeof RepeatedExecution>;

/** The gateway gave an operation its identity. The first event of every execution stream. */
export const ExecutionAcceptedData = z
  .object({
    executionId: ExecutionId,
    tool: z.string().min(1),
    channel: Channel,
    /** The authenticated caller (DESIGN.md §2), never a claim from the request body. */
    actor: z.string().min(1),
    /** The agent process behind the call (MCP session, runtime process id), when known. */
    agentProcess: z.string().min(1).nullable(),
    intentScope: z.string().min(1),
    fingerprint: Fingerprint,
    record: CanonicalOperationRecord,
    /** Every argument, generated ones included: the dispatcher sends from these, the fingerprint ignores some. */
    arguments: z.record(z.string(), JsonValue),
    effectClass: EffectClass,
    approval: ApprovalMode,
    /** Until when a retry may attach to this execution while it is unfinished or undelivered (DESIGN.md §5). */
    correlationWindowEndsAt: IsoTimestamp,
    /** Until when a completed execution answers a same-intent call as a ledger hit; null when the tool keeps no ledger. */
    ledgerRetentionEndsAt: IsoTimestamp.nullable(),
    /** An idempotency key the client sent, kept as evidence; the gateway never deduplicates on it alone. */
    clientIdempotencyKey: z.string().min(1).nullable(),
    acceptedAt: IsoTimestamp,
    /** The run and attempt the call named (DESIGN.md §7); null for a call outside any run. */
    run: RunReference.nullable().default(null),
    /** The earlier execution of the same intent this one repeats, when one exists: shown to approvers and in divergence reports. */
    repeats: RepeatedExecution.nullable().default(null),
  })
  .superRefine((data, ctx) => {
    // The record is what the fingerprint covers; if it disagreed with the fields matching reads,
    // two executions could match on one and differ on the other.
    const mirrored = [
      ['actor', data.record.actor, data.actor],
      ['tool', data.record.tool, data.tool],
      ['channel', data.record.channel, data.channel],
      ['intent_scope', data.record.intent_scope, data.intentScope],
    ] as const;
    for (const [field, inRecord, outside] of mirrored) {
      if (inRecord !== outside)
        ctx.addIssue({ code: 'custom', path: ['record', field], message: `record.${field} (${inRecord}) differs from ${outside}` });
    }
    // A run's calls all share the scope its trigger derives (DESIGN.md §7): that is what makes attempts match.
    if (data.run && data.intentScope !== runIntentScope(data.run.trigger)) {
      ctx.addIssue({
        code: 'custom',
        path: ['intentScope'],
        message: `a call of run ${data.run.runId} has intent scope ${runIntentScope(data.run.trigger)}`,
      });
    }
    for (const field of ['correlationWindowEndsAt', 'ledgerRetentionEndsAt'] as const) {
      const endsAt = data[field];
      if (endsAt !== null && Date.parse(endsAt) < Date.parse(data.acceptedAt)) {
        ctx.addIssue({ code: 'custom', path: [field], message: `${field} is before acceptedAt` });
      }
    }
  });
export type ExecutionAcceptedData = z.infer<typeof ExecutionAcceptedData>;
export type ExecutionAccepted = Event<'ExecutionAccepted', ExecutionAcceptedData>;

/** v1 as written before runs (frozen copy): no run, no repeated execution. */
const ExecutionAcceptedDataV1 = z.object({
  executionId: ExecutionId,
  tool: z.string().min(1),
  channel: Channel,
  actor: z.string().min(1),
  agentProcess: z.string().min(1).nullable(),
  intentScope: z.string().min(1),
  fingerprint: Fingerprint,
  record: CanonicalOperationRecord,
  arguments: z.record(z.string(), JsonValue),
  effectClass: EffectClass,
  approval: ApprovalMode,
  correlationWindowEndsAt: IsoTimestamp,
  ledgerRetentionEndsAt: IsoTimestamp.nullable(),
  clientIdempotencyKey: z.string().min(1).nullable(),
  acceptedAt: IsoTimestamp,
});

export const ExecutionAcceptedEvent = defineEvent('ExecutionAccepted', 2, ExecutionAcceptedData);

export const executionAcceptedPast = [pastVersion(1, ExecutionAcceptedDataV1, (v1) => ({ ...v1, run: null, repeats: null }))];
