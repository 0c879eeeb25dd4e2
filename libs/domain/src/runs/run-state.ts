import { type ForcedReplay, type RunEvent } from '@onceport/contracts';

export interface RunAttempt {
  readonly attempt: number;
  readonly startedAt: string;
  readonly requestedBy: string;
  readonly forced: ForcedReplay | null;
}

/** A run as its stream folds: who runs it, its trigger, and its attempts, oldest first. */
export interface OpenRunState {
  readonly status: 'open';
  readonly runId: string;
  readonly actor: string;
  readonly trigger: string;
  readonly openedAt: string;
  readonly attempts: readonly RunAttempt[];
}

export type RunState = { readonly status: 'none' } | OpenRunState;

export function currentAttempt(run: OpenRunState): number {
  return run.attempts[run.attempts.length - 1]?.attempt ?? 1;
}

export function evolveRun(state: RunState, event: RunEvent): RunState {
  switch (event.type) {
    case 'RunOpened': {
      if (state.status === 'open') return state;
      const { runId, actor, trigger, openedAt } = event.data;
      return {
        status: 'open',
        runId,
        actor,
        trigger,
        openedAt,
        attempts: [{ attempt: 1, startedAt: openedAt, requestedBy: actor, forced: null }],
      };
    }
    case 'RunAttemptStarted': {
      if (state.status !== 'open') return state;
      const { attempt, startedAt, requestedBy, forced } = event.data;
      return { ...state, attempts: [...state.attempts, { attempt, startedAt, requestedBy, forced }] };
    }
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
}
