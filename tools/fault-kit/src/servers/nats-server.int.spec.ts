import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { CleanupStack } from '../cleanup-stack';
import { isPortOpen } from '../net/ports';
import { connectClient } from '../testing/tcp';
import { NatsServer } from './nats-server';

const cleanup = new CleanupStack();
afterAll(() => cleanup.run());

async function streamNames(nats: NatsServer): Promise<string[]> {
  const nc = await connect({ servers: nats.url, reconnect: false });
  try {
    const jsm = await jetstreamManager(nc);
    return (await jsm.streams.names().next()) ?? [];
  } finally {
    await nc.close();
  }
}

async function seed(nc: NatsConnection): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: 'FAULTKIT', subjects: ['faultkit.>'] });
  await jetstream(nc).publish('faultkit.one', 'stored');
}

describe('NatsServer (a private real nats-server with JetStream)', () => {
  let nats: NatsServer;

  beforeAll(async () => {
    nats = cleanup.add(await NatsServer.start(), (server) => server.stop());
  });

  it('kill() (SIGKILL) takes it down; restart() brings it back with its JetStream store', async () => {
    const nc = await connect({ servers: nats.url, reconnect: false });
    await seed(nc);
    await nc.close();
    const exit = await nats.kill();
    expect(exit.signal).toBe('SIGKILL');
    expect(await isPortOpen(nats.port)).toBe(false);
    await nats.restart();
    expect(await streamNames(nats)).toEqual(['FAULTKIT']);
  });

  it('pause() (SIGSTOP) leaves the port open but nothing answers, until resume()', async () => {
    await nats.pause();
    const client = await connectClient(nats.port);
    client.socket.write('PING\r\n');
    await sleep(250);
    expect(client.received().length).toBe(0);
    await nats.resume();
    expect((await client.waitForBytes(4)).toString()).toMatch(/^INFO /);
    client.socket.destroy();
  });

  it('restartWiped() brings it back empty: streams and messages are gone', async () => {
    expect(await streamNames(nats)).toEqual(['FAULTKIT']);
    await nats.restartWiped();
    expect(await streamNames(nats)).toEqual([]);
  });

  it('with monitor: true, counts the messages it received and sent; without, it says how to turn counting on', async () => {
    const monitored = cleanup.add(await NatsServer.start({ monitor: true }), (server) => server.stop());
    const nc = await connect({ servers: monitored.url, reconnect: false });
    try {
      const received: string[] = [];
      nc.subscribe('counted.>', {
        callback: (_error, message) => {
          received.push(message.subject);
        },
      });
      await nc.flush();
      const before = await monitored.messageCounts();
      for (const subject of ['counted.a', 'counted.b', 'counted.c']) nc.publish(subject, 'x');
      await nc.flush();
      const after = await monitored.messageCounts();
      expect(received).toHaveLength(3);
      // Exactly ours: nothing else talks to this private server.
      expect(after.inMsgs - before.inMsgs).toBe(3);
      expect(after.outMsgs - before.outMsgs).toBe(3);
      expect(after.inBytes - before.inBytes).toBe(3);
    } finally {
      await nc.close();
    }
    await expect(nats.messageCounts()).rejects.toThrow(/monitor: true/);
  });

  it('stop() removes the store it created', async () => {
    const other = await NatsServer.start();
    expect(existsSync(other.storeDir)).toBe(true);
    await other.stop();
    expect(existsSync(other.storeDir)).toBe(false);
    expect(other.running).toBe(false);
  });
});
