export * from './execution';
export * from './matching';
export * from './tool-contracts';
export * from './fingerprint';
export * from './authorization';
export * from './sealed-arguments';
export * from './decider';
export * from './intake';
