import { decide } from './decide';
import { evolve } from './evolve';
import { initialState } from './execution-state';

/**
 * The execution as one decider (Emmett style), for command handlers that load, fold, decide and
 * append with the expected version.
 *
 * @example const events = executionDecider.decide(command, events.reduce(executionDecider.evolve, executionDecider.initialState()));
 */
export const executionDecider = { decide, evolve, initialState } as const;
