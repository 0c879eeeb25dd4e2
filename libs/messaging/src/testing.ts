export { TestNatsServer, freePort } from './testing/test-nats-server';
export { type NatsKit, connectKit, waitFor } from './testing/nats-kit';
