import { z } from 'zod';
import { CanonicalOperationRecord, Channel, EffectClass, ExecutionId, Fingerprint, IsoTimestamp, JsonValue } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';
import { ApprovalMode } from './shared-data';

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
    for (const field of ['correlationWindowEndsAt', 'ledgerRetentionEndsAt'] as const) {
      const endsAt = data[field];
      if (endsAt !== null && Date.parse(endsAt) < Date.parse(data.acceptedAt)) {
        ctx.addIssue({ code: 'custom', path: [field], message: `${field} is before acceptedAt` });
      }
    }
  });
export type ExecutionAcceptedData = z.infer<typeof ExecutionAcceptedData>;
export type ExecutionAccepted = Event<'ExecutionAccepted', ExecutionAcceptedData>;

export const ExecutionAcceptedEvent = defineEvent('ExecutionAccepted', 1, ExecutionAcceptedData);
