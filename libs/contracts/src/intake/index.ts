export * from './intent-claimed.event';
