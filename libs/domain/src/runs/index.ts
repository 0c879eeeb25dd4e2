export * from './run-state';
export * from './run-execution';
export * from './replay-check';
export * from './run-decider';
export * from './divergence';
export * from './campaign-decider';
