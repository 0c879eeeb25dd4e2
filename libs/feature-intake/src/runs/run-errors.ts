import { type RunRefusalCode } from '@onceport/domain';

/** HTTP status and problem type of each refused run command (REST and admin answers; MCP names the code). */
export const RUN_REFUSAL_STATUS: Record<RunRefusalCode | 'attempt_not_started', { status: number; type: string; title: string }> = {
  run_not_found: { status: 404, type: 'run-not-found', title: 'Run not found' },
  run_of_another_actor: { status: 403, type: 'run-of-another-actor', title: "This run is another actor's" },
  trigger_differs: { status: 409, type: 'trigger-differs', title: 'The run was opened for another trigger' },
  replay_unsafe: { status: 409, type: 'replay-unsafe', title: 'A replay would repeat effects' },
  attempt_moved_on: { status: 409, type: 'attempt-moved-on', title: 'That attempt is not the latest any more' },
  attempt_not_started: { status: 409, type: 'attempt-not-started', title: 'That attempt has not started' },
};

/** A deliberate repeat the gateway will not take: the tool forbids it, or the execution it repeats is not settled. */
export class RepeatRefusedError extends Error {
  readonly code = 'repeat_refused';
  constructor(
    message: string,
    readonly executionId: string | null,
  ) {
    super(message);
    this.name = 'RepeatRefusedError';
  }
}
