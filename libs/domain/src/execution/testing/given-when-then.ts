import { type ExecutionEvent, executionEventDefinitions } from '@onceport/contracts';
import { decide } from '../decide';
import { type ExecutionCommand } from '../execution-command';
import { type ExecutionState } from '../execution-state';
import { foldEvents, evolve } from '../evolve';
import { IllegalTransitionError, type IllegalTransitionCode } from '../illegal-transition.error';

export interface Then {
  /** Expects exactly these events, checks each against its contract schema, and returns the state they lead to. */
  then(expected: readonly ExecutionEvent[]): ExecutionState;
  /** Expects a recognised redelivery: no events, no error. */
  thenNothing(): void;
  /** Expects a refusal with this code, naming the command and the state it was refused in. */
  thenRefuses(code: IllegalTransitionCode): IllegalTransitionError;
}

/** Emmett-style decider specification: `given(events).when(command).then(events)`. */
export function given(history: readonly ExecutionEvent[]): { when(command: ExecutionCommand): Then } {
  const state = foldEvents(history);
  return {
    when: (command) => ({
      then: (expected) => {
        const actual = decide(command, state);
        expect(actual).toEqual(expected);
        actual.forEach(expectPublishable);
        return actual.reduce(evolve, state);
      },
      thenNothing: () => {
        expect(decide(command, state)).toEqual([]);
      },
      thenRefuses: (code) => {
        const error = refusal(() => decide(command, state));
        expect({ code: error.code, command: error.command, status: error.status }).toEqual({
          code,
          command: command.type,
          status: state.status,
        });
        expect(error.message.length).toBeGreaterThan(10);
        return error;
      },
    }),
  };
}

/** Whatever a decider emits must be publishable: it has to pass the contract at the boundary. */
function expectPublishable(event: ExecutionEvent): void {
  const parsed = executionEventDefinitions[event.type].data.safeParse(event.data);
  expect(parsed.error?.issues ?? []).toEqual([]);
}

function refusal(act: () => unknown): IllegalTransitionError {
  try {
    const events = act();
    throw new Error(`expected a refusal, got ${JSON.stringify(events)}`);
  } catch (error) {
    if (error instanceof IllegalTransitionError) return error;
    throw error;
  }
}
