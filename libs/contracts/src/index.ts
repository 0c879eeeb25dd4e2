export * from './primitives';
export * from './events';
export * from './streams';
export * from './intake';
export * from './vault';
export * from './sessions';
