import { z } from 'zod';
import { type Event } from '../events/event';
import { defineEvent } from '../events/event-definition';
import { IsoTimestamp } from '../primitives';
import { inSubjectSpace } from '../vault/subject-space';
import { RUN_SUBJECT_PREFIX, RunId, RunTrigger } from './run-stream';

/** A run began (its attempt 1): who runs it and which outside event triggered it (DESIGN.md §7). */
export const RunOpenedData = z.object({
  runId: RunId,
  /** The authenticated actor whose calls the run groups; only that actor may call in it. */
  actor: z.string().min(1),
  trigger: RunTrigger,
  openedAt: IsoTimestamp,
});
export type RunOpenedData = z.infer<typeof RunOpenedData>;
export type RunOpened = Event<'RunOpened', RunOpenedData>;

export const RunOpenedEvent = inSubjectSpace(defineEvent('RunOpened', 1, RunOpenedData), RUN_SUBJECT_PREFIX);
