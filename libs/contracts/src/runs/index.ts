export * from './run-stream';
export * from './run-opened.event';
export * from './run-attempt-started.event';
export * from './run-event';
export * from './campaign-stream';
export * from './campaign-granted.event';
export * from './campaign-event';
