import { z } from 'zod';
import { ExecutionId, IsoTimestamp } from '../primitives';
import { type Event } from './event';
import { defineEvent } from './event-definition';
import { Attempt } from './shared-data';

/**
 * A task id an MCP upstream answered a `tools/call` with (the Tasks extension): what the reconciler
 * polls `tasks/get` with. The upstream chose it, so it is bounded here: printable ASCII, no spaces,
 * at most 128 characters — safe in an event, a log line and a JSON-RPC request.
 */
export const UpstreamTaskId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[\x21-\x7e]+$/, 'expected printable ASCII without spaces');
export type UpstreamTaskId = z.infer<typeof UpstreamTaskId>;

/**
 * The request may have reached the target but no answer came (timeout or reset after the body was
 * handed to the socket, SSH drop after the shell started, dispatcher lease expired). A first-class
 * outcome: settled by probes, never by a blind re-send.
 */
export const OutcomeUnknownData = z.object({
  executionId: ExecutionId,
  attempt: Attempt,
  reason: z.string().min(1),
  detectedAt: IsoTimestamp,
  /**
   * The MCP upstream answered with a task that had not finished when the dispatcher stopped waiting:
   * the reconciler settles the execution by polling it. Optional so every earlier event still reads
   * (as `ApprovalRequested.kind` was added); a reader that predates it drops it and settles by the
   * effect class table, as before.
   */
  upstreamTaskId: UpstreamTaskId.optional(),
});
export type OutcomeUnknownData = z.infer<typeof OutcomeUnknownData>;
export type OutcomeUnknown = Event<'OutcomeUnknown', OutcomeUnknownData>;

export const OutcomeUnknownEvent = defineEvent('OutcomeUnknown', 1, OutcomeUnknownData);
