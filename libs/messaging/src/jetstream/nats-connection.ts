import { connect, type NatsConnection } from '@nats-io/transport-node';

/** Connects and keeps reconnecting forever: a NATS outage delays work, it must not end a service. */
export function connectToNats(servers: string, name: string): Promise<NatsConnection> {
  return connect({
    servers: servers.split(',').map((s) => s.trim()),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
  });
}
