export * from './vault-stream';
export * from './subject-space';
export * from './vault-locked.event';
export * from './vault-unlocked.event';
export * from './vault-event';
