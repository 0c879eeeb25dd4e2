export * from './retry-candidate';
export * from './retry-match';
export { matchRetry } from './match-retry';
