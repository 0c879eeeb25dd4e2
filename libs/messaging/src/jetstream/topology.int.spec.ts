import { TestNatsServer } from '../testing/test-nats-server';
import { type NatsKit, connectKit } from '../testing/nats-kit';
import { ConsumerFilterConflictError, ensureDurableConsumer, ensureStream } from './topology';

const STREAM = 'TOPOLOGY_TEST';
const stream = (duplicateWindowMs: number) => ({ name: STREAM, subjects: ['topology.>'], duplicateWindowMs });
const NANOS_PER_MS = 1_000_000;

describe('JetStream topology declared in code (real nats-server)', () => {
  let server: TestNatsServer;
  let kit: NatsKit;

  beforeAll(async () => {
    server = await TestNatsServer.start();
    kit = await connectKit(server.url, 'topology-test');
  });
  afterAll(async () => {
    await kit?.close();
    await server?.stop();
  });

  it('declaring the stream twice leaves one stream; a changed setting is applied to it', async () => {
    await ensureStream(kit.jsm, stream(60_000));
    await ensureStream(kit.jsm, stream(60_000));
    expect((await kit.jsm.streams.info(STREAM)).config.duplicate_window).toBe(60_000 * NANOS_PER_MS);
    await ensureStream(kit.jsm, stream(120_000));
    expect((await kit.jsm.streams.info(STREAM)).config.duplicate_window).toBe(120_000 * NANOS_PER_MS);
    const names: string[] = [];
    for await (const name of kit.jsm.streams.names()) names.push(name);
    expect(names.filter((name) => name === STREAM)).toHaveLength(1);
  });

  it('declaring a durable twice leaves one consumer; its ack wait, max deliver and max ack pending follow the declaration', async () => {
    const spec = { durable: 'topology-worker', filterSubject: 'topology.a' };
    await ensureDurableConsumer(kit.jsm, STREAM, { ...spec, ackWaitMs: 5_000 });
    await ensureDurableConsumer(kit.jsm, STREAM, { ...spec, ackWaitMs: 5_000 });
    await ensureDurableConsumer(kit.jsm, STREAM, { ...spec, ackWaitMs: 9_000, maxDeliver: 7, maxAckPending: 12 });
    const info = await kit.jsm.consumers.info(STREAM, spec.durable);
    expect(info.config).toMatchObject({
      filter_subject: 'topology.a',
      ack_wait: 9_000 * NANOS_PER_MS,
      max_deliver: 7,
      max_ack_pending: 12,
    });
    const consumers = await kit.jsm.consumers.list(STREAM).next();
    expect(consumers.map((c) => c.name)).toEqual([spec.durable]);
  });

  it('a durable that exists with another filter subject is refused, naming both filters and the fix; the consumer is left as it was', async () => {
    const declare = ensureDurableConsumer(kit.jsm, STREAM, { durable: 'topology-worker', filterSubject: 'topology.b' });
    await expect(declare).rejects.toThrow(ConsumerFilterConflictError);
    await expect(ensureDurableConsumer(kit.jsm, STREAM, { durable: 'topology-worker', filterSubject: 'topology.b' })).rejects.toThrow(
      'JetStream consumer "topology-worker" on stream "TOPOLOGY_TEST" filters "topology.a", but this service declares "topology.b". Delete it (nats consumer rm TOPOLOGY_TEST topology-worker)',
    );
    expect((await kit.jsm.consumers.info(STREAM, 'topology-worker')).config.filter_subject).toBe('topology.a');
  });
});
