export * from './primitives';
export * from './events';
