import { z } from 'zod';

const RUN_STREAM_PREFIX = 'run-';

export const RUN_SUBJECT_PREFIX = 'onceport.run';

/**
 * A run's id: chosen by the orchestrator (its own run id) or assigned by `POST /v1/runs`
 * (`run_<ulid>`). Letters, digits and `._:-`, so it is safe in a stream id, a URL path and a log.
 */
export const RunId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/, 'expected a run id: 1–100 of letters, digits and . _ : - (starting with a letter or digit)');
export type RunId = z.infer<typeof RunId>;

/**
 * The triggering event of a run: an id from the outside world (a webhook delivery, a ticket, a
 * schedule tick). Printable ASCII without spaces, at most 190 characters, so the intent scope it
 * derives (`trigger:<it>`) stays within the 200 characters an intent scope may have.
 */
export const RunTrigger = z.string().regex(/^[\x21-\x7e]{1,190}$/, 'expected a trigger: 1–190 printable characters without spaces');
export type RunTrigger = z.infer<typeof RunTrigger>;

/** Every event of one run lives in `run-<run id>`. */
export function runStreamId(runId: string): string {
  return `${RUN_STREAM_PREFIX}${runId}`;
}

export function runIdOfStream(streamId: string): string | null {
  return streamId.startsWith(RUN_STREAM_PREFIX) ? streamId.slice(RUN_STREAM_PREFIX.length) : null;
}

/** The intent scope of every call of a run: derived from its trigger, so every attempt matches the same intents (DESIGN.md §7). */
export function runIntentScope(trigger: string): string {
  return `trigger:${trigger}`;
}

/** Which run and attempt a call belonged to; recorded on the execution events it caused. */
export const RunReference = z.object({
  runId: RunId,
  attempt: z.int().min(1).max(10_000),
  trigger: RunTrigger,
});
export type RunReference = z.infer<typeof RunReference>;
