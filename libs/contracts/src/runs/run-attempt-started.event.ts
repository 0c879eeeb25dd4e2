import { z } from 'zod';
import { type Event } from '../events/event';
import { defineEvent } from '../events/event-definition';
import { ExecutionStatus } from '../events/shared-data';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { inSubjectSpace } from '../vault/subject-space';
import { RUN_SUBJECT_PREFIX, RunId } from './run-stream';

/** Why an effect an earlier attempt produced is not safe to replay (DESIGN.md §7). */
export const UnsafeReason = z.enum([
  /** Completed, irreversible (or undeclared), and no ledger turns a repeat into a hit. */
  'irreversible_completed',
  /** Completed without a ledger: a repeat would be a new execution with a new idempotency key. */
  'completed_without_ledger',
  /** Completed, but its ledger retention is over: a repeat would be sent again. */
  'ledger_retention_lapsed',
  /** The outcome is not known yet. */
  'outcome_unknown',
  /** A human is reviewing the outcome. */
  'awaiting_review',
  /** Still on its way (accepted, awaiting approval, authorized or dispatched). */
  'in_flight',
]);
export type UnsafeReason = z.infer<typeof UnsafeReason>;

export const UnsafeEffect = z.object({
  executionId: ExecutionId,
  tool: z.string().min(1).max(128),
  attempt: z.int().min(1),
  status: ExecutionStatus,
  reason: UnsafeReason,
});
export type UnsafeEffect = z.infer<typeof UnsafeEffect>;

/** At most this many unsafe effects are written into one event; the count says how many there were. */
export const MAX_UNSAFE_IN_EVENT = 200;

/** An operator overrode a refused replay check: who, why, and what the new attempt may repeat. */
export const ForcedReplay = z.object({
  by: z.string().min(1),
  reason: z.string().max(1000).regex(/\S/, 'expected a reason that is not blank'),
  unsafe: z.array(UnsafeEffect).max(MAX_UNSAFE_IN_EVENT),
  unsafeCount: z.int().min(0),
});
export type ForcedReplay = z.infer<typeof ForcedReplay>;

/** A replay began: attempt n+1 of the run, after the replay check said yes — or an operator forced it. */
export const RunAttemptStartedData = z.object({
  runId: RunId,
  attempt: z.int().min(2).max(10_000),
  /** Who asked: the run's actor, or the operator who forced it. */
  requestedBy: z.string().min(1),
  startedAt: IsoTimestamp,
  forced: ForcedReplay.nullable(),
});
export type RunAttemptStartedData = z.infer<typeof RunAttemptStartedData>;
export type RunAttemptStarted = Event<'RunAttemptStarted', RunAttemptStartedData>;

export const RunAttemptStartedEvent = inSubjectSpace(defineEvent('RunAttemptStarted', 1, RunAttemptStartedData), RUN_SUBJECT_PREFIX);
