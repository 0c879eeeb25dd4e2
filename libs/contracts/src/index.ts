export * from './primitives';
export * from './events';
export * from './streams';
