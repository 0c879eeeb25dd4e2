/** Sample executions and a given/when/then helper, for tests of the services that use the decider. */
export * from './execution/testing/sample-execution';
export { given } from './execution/testing/given-when-then';
export { relabelHistory, type RelabelableEvent } from './execution/testing/relabel-history';
