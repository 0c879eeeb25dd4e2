import { type ExecutionEvent } from '@onceport/contracts';
import { type Decider } from '../decider';
import { decide } from './decide';
import { evolve } from './evolve';
import { type ExecutionCommand } from './execution-command';
import { type ExecutionState, initialState } from './execution-state';

/**
 * The execution as one decider (Emmett style), for command handlers that load, fold, decide and
 * append with the expected version.
 *
 * @example const events = executionDecider.decide(command, events.reduce(executionDecider.evolve, executionDecider.initialState()));
 */
export const executionDecider: Decider<ExecutionCommand, ExecutionState, ExecutionEvent> = { decide, evolve, initialState };
