import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { RunReference } from '../runs/run-stream';
import { type Event } from './event';
import { defineEvent } from './event-definition';
import { pastVersion } from './past-version';
import { ExecutionStatus, RequestCorrelation } from './shared-data';

/** A later request matched this execution (DESIGN.md §5) and was answered from it instead of becoming a new one. */
export const RetryAttachedData = z.object({
  executionId: ExecutionId,
  /** The retry's own transport correlation: the answer goes there. */
  correlation: RequestCorrelation,
  agentProcess: z.string().min(1).nullable(),
  clientIdempotencyKey: z.string().min(1).nullable(),
  /** The state the retry was answered from, so the audit shows what the agent was told. */
  stateAtAttach: ExecutionStatus,
  attachedAt: IsoTimestamp,
  /** The run and attempt the retry named: a call of attempt 2 answered by attempt 1's execution is a ledger hit across attempts. */
  run: RunReference.nullable().default(null),
});
export type RetryAttachedData = z.infer<typeof RetryAttachedData>;
export type RetryAttached = Event<'RetryAttached', RetryAttachedData>;

/** v1 as written before runs (frozen copy). */
const RetryAttachedDataV1 = z.object({
  executionId: ExecutionId,
  correlation: RequestCorrelation,
  agentProcess: z.string().min(1).nullable(),
  clientIdempotencyKey: z.string().min(1).nullable(),
  stateAtAttach: ExecutionStatus,
  attachedAt: IsoTimestamp,
});

export const RetryAttachedEvent = defineEvent('RetryAttached', 2, RetryAttachedData);

export const retryAttachedPast = [pastVersion(1, RetryAttachedDataV1, (v1) => ({ ...v1, run: null }))];
