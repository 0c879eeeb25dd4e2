import { z } from 'zod';
import { type Event } from '../events/event';
import { defineEvent } from '../events/event-definition';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { inSubjectSpace } from '../vault/subject-space';
import { RUN_SUBJECT_PREFIX, RunId } from './run-stream';

/** At most this many executions a grant lists as already waiting when it was given. */
export const MAX_CAMPAIGN_COVERED = 1000;

/**
 * An approver granted a run's per-use calls of one tool, up to a count (DESIGN.md §7, campaign
 * approval): each call of the run takes one use and is approved with this grant as its evidence.
 */
export const CampaignGrantedData = z.object({
  runId: RunId,
  tool: z.string().min(1).max(128),
  /** How many calls this grant approves (added to earlier grants of the same run and tool). */
  count: z.int().min(1).max(100_000),
  /** The approver (an admin). */
  by: z.string().min(1),
  reason: z.string().max(1000).regex(/\S/, 'expected a reason that is not blank'),
  /** The executions that were waiting when the approver decided, as shown to them. */
  shown: z.array(ExecutionId).max(MAX_CAMPAIGN_COVERED),
  grantedAt: IsoTimestamp,
});
export type CampaignGrantedData = z.infer<typeof CampaignGrantedData>;
export type CampaignGranted = Event<'CampaignGranted', CampaignGrantedData>;
export const CampaignGrantedEvent = inSubjectSpace(defineEvent('CampaignGranted', 1, CampaignGrantedData), RUN_SUBJECT_PREFIX);

/** One call of the run used one of the granted approvals. */
export const CampaignUseCountedData = z.object({
  executionId: ExecutionId,
  /** 1 for the first use, counting across every grant of the run and tool. */
  use: z.int().min(1),
  countedAt: IsoTimestamp,
});
export type CampaignUseCountedData = z.infer<typeof CampaignUseCountedData>;
export type CampaignUseCounted = Event<'CampaignUseCounted', CampaignUseCountedData>;
export const CampaignUseCountedEvent = inSubjectSpace(defineEvent('CampaignUseCounted', 1, CampaignUseCountedData), RUN_SUBJECT_PREFIX);
