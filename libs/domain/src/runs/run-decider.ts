import { MAX_UNSAFE_IN_EVENT, type RunEvent } from '@onceport/contracts';
import { type Decider } from '../decider';
import { type CommandMetadata } from '../execution/execution-command';
import { type ReplayCheck } from './replay-check';
import { type RunState, currentAttempt, evolveRun } from './run-state';

export interface OpenRun {
  readonly type: 'OpenRun';
  readonly data: { readonly runId: string; readonly actor: string; readonly trigger: string };
  readonly metadata: CommandMetadata;
}

/** Start attempt n+1, given the replay check over everything the run did so far. */
export interface StartReplay {
  readonly type: 'StartReplay';
  readonly data: {
    /** The attempt the caller saw as the latest: a replay of a replay that already started is not started twice. */
    readonly after: number;
    readonly requestedBy: string;
    readonly check: ReplayCheck;
    /** An operator's override of an unsafe check, with the reason recorded. */
    readonly force: { readonly by: string; readonly reason: string } | null;
  };
  readonly metadata: CommandMetadata;
}

export type RunCommand = OpenRun | StartReplay;

export type RunRefusalCode = 'run_not_found' | 'run_of_another_actor' | 'trigger_differs' | 'replay_unsafe' | 'attempt_moved_on';

/** A run command the rules refuse; the code says which rule, the check says what was unsafe. */
export class RunRefusal extends Error {
  constructor(
    readonly code: RunRefusalCode,
    message: string,
    readonly check: ReplayCheck | null = null,
  ) {
    super(message);
    this.name = 'RunRefusal';
  }
}

function decideRun(command: RunCommand, state: RunState): RunEvent[] {
  const at = command.metadata.now.toISOString();
  if (command.type === 'OpenRun') {
    const { runId, actor, trigger } = command.data;
    if (state.status === 'none') return [{ type: 'RunOpened', data: { runId, actor, trigger, openedAt: at } }];
    // Opening an open run again (a retried POST, a call naming it) records nothing, if it is the same run.
    if (state.actor !== actor) throw new RunRefusal('run_of_another_actor', `run ${runId} belongs to another actor`);
    if (state.trigger !== trigger)
      throw new RunRefusal(
        'trigger_differs',
        `run ${runId} was opened for trigger "${state.trigger}", not "${trigger}"; a new trigger is a new run`,
      );
    return [];
  }
  if (state.status === 'none') throw new RunRefusal('run_not_found', 'no such run');
  const { after, requestedBy, check, force } = command.data;
  const attempt = currentAttempt(state);
  if (after !== attempt)
    throw new RunRefusal(
      'attempt_moved_on',
      `run ${state.runId} is at attempt ${attempt}, not ${after}: attempt ${attempt} already started`,
    );
  if (!check.safe && force === null)
    throw new RunRefusal('replay_unsafe', `run ${state.runId} produced effects a replay would repeat`, check);
  const forced =
    force === null
      ? null
      : { by: force.by, reason: force.reason, unsafe: check.unsafe.slice(0, MAX_UNSAFE_IN_EVENT), unsafeCount: check.unsafe.length };
  return [{ type: 'RunAttemptStarted', data: { runId: state.runId, attempt: attempt + 1, requestedBy, startedAt: at, forced } }];
}

/** A run stream's rules (DESIGN.md §7). */
export const runDecider: Decider<RunCommand, RunState, RunEvent> = {
  decide: decideRun,
  evolve: evolveRun,
  initialState: () => ({ status: 'none' }),
};
