export * from './primitives';
export { type CanonicalJsonOptions, NonJsonValueError, canonicalJson } from './canonical-json';
export * from './events';
export * from './streams';
export * from './intake';
export * from './vault';
export * from './sessions';
export * from './runs';
