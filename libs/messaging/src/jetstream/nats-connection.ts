import { connect, type NatsConnection } from '@nats-io/transport-node';

/** Connects and keeps reconnecting forever: a NATS outage delays work, it must not end a service. */
export function connectToNats(servers: string, name: string): Promise<NatsConnection> {
  return connect({
    servers: servers.split(',').map((s) => s.trim()),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    // Otherwise every request (each JetStream publish) builds an Error up front for its stack trace,
    // in case it fails: measured, about 33 → 23 µs of client CPU per publish (tools/bench/scripts/nats-publish-cost.cjs).
    // A failure still says what failed; its stack ends in the client instead of at our call.
    noAsyncTraces: true,
  });
}
