export type { Decider } from './decider';
