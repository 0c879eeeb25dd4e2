import { randomUUID } from 'node:crypto';
import { type JetStreamClient, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';
import { PostgresEventStore } from '@onceport/event-store';
import { connectToNats, ensureStream } from '@onceport/messaging';
import type { Pool } from 'pg';
import { timed } from '../callers/callers';

/**
 * What Onceport's design needs on the way to one answer, counted from the code path (an MCP call
 * that completes):
 *  1. intake: the intent claim and ExecutionAccepted, one commit
 *  2. relay: ExecutionAccepted published, one JetStream ack
 *  3. authorization: ExecutionAuthorized, one commit
 *  4. relay: ExecutionAuthorized published, one JetStream ack
 *  5. dispatcher: DispatchStarted, one commit (before any byte leaves)
 *  6. dispatcher: OutcomeObserved, one commit (after the target answered)
 * ResultDelivered, the SSE events of the call's stream (its priming event and the answer: sent
 * before their commit, see McpStreamEventIds) and the relay's checkpoints commit after the answer or
 * beside the path; they count for throughput, not for latency. (The consumers keep no inbox rows:
 * their streams refuse a redelivery.)
 */
export const COMMITS_ON_ANSWER_PATH = 4;
export const ACKS_ON_ANSWER_PATH = 2;
/** Writing commits per execution in all: the four above, the answer's SSE event and ResultDelivered (the relay's checkpoint, one per batch, comes on top). */
export const COMMITS_PER_EXECUTION = 6;

/** One durable step of each kind, measured on this machine against the same servers the apps use. */
export interface DurableSteps {
  /** One event appended in its own transaction (hash chain and notify triggers included). */
  commit(): Promise<number>;
  /** One ~1 KiB message published to a file-backed JetStream stream, until its ack. */
  publishAck(): Promise<number>;
  close(): Promise<void>;
}

const PAYLOAD = JSON.stringify({ pad: 'x'.repeat(900) });

export async function durableSteps(pool: Pool, natsUrl: string): Promise<DurableSteps> {
  const store = new PostgresEventStore(pool);
  const nc: NatsConnection = await connectToNats(natsUrl, 'bench-durable-steps');
  const jsm = await jetstreamManager(nc);
  await ensureStream(jsm, { name: 'BENCH_ACKS', subjects: ['bench.acks'] });
  const js: JetStreamClient = jetstream(nc);
  return {
    async commit() {
      const { ms } = await timed(() =>
        store.append(
          `bench-commit-${randomUUID()}`,
          [
            {
              eventId: randomUUID(),
              type: 'BenchCommitted',
              schemaVersion: 1,
              data: { pad: 'x'.repeat(600) },
              metadata: { correlationId: 'bench', causationId: 'bench' },
            },
          ],
          { expectedVersion: 0 },
        ),
      );
      return ms;
    },
    async publishAck() {
      const h = natsHeaders();
      h.set('Onceport-Stream-Id', 'bench');
      const { ms } = await timed(() => js.publish('bench.acks', PAYLOAD, { msgID: randomUUID(), headers: h }));
      return ms;
    },
    close: () => nc.drain(),
  };
}
