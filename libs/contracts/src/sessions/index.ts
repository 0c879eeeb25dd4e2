export * from './session-stream';
export * from './session-granted.event';
export * from './session-event';
