export * from './execution-state';
export * from './execution-command';
export * from './illegal-transition.error';
export { evolve, foldEvents } from './evolve';
export { decide, tryDecide, type DecideResult } from './decide';
export { executionDecider } from './execution-decider';
export { newExecutionId } from './execution-id';
