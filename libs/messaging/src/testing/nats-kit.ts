import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { executionStreamSpec } from '../jetstream/execution-stream';
import { connectToNats } from '../jetstream/nats-connection';
import { ensureStream } from '../jetstream/topology';

/** A connection to a test server with the execution stream declared. */
export interface NatsKit {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  close(): Promise<void>;
}

export async function connectKit(url: string, name = 'test'): Promise<NatsKit> {
  const nc = await connectToNats(url, name);
  const jsm = await jetstreamManager(nc);
  await ensureStream(jsm, executionStreamSpec());
  return { nc, js: jetstream(nc), jsm, close: () => nc.close() };
}

export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 30_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await sleep(25);
  }
}
