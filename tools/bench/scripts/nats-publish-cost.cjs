// Client CPU per JetStream publish with and without the client's async stack traces, side by side
// in one run (rounds alternate): `node tools/bench/scripts/nats-publish-cost.cjs [nats-url] [messages]`.
// Every service connects with noAsyncTraces (libs/messaging/src/jetstream/nats-connection.ts); this says what that saves.
'use strict';
const { connect } = require('@nats-io/transport-node');
const { jetstream, jetstreamManager } = require('@nats-io/jetstream');

const servers = process.argv[2] ?? '127.0.0.1:4222';
const messages = Number(process.argv[3] ?? 20000);
const IN_FLIGHT = 64;

async function cpuPerPublish(noAsyncTraces, round) {
  const nc = await connect({ servers, noAsyncTraces });
  const jsm = await jetstreamManager(nc);
  const name = `PUBLISH_COST_${process.pid}_${round}_${noAsyncTraces ? 'plain' : 'traced'}`;
  await jsm.streams.add({ name, subjects: [`${name}.>`], storage: 'memory' });
  try {
    const js = jetstream(nc);
    const before = process.cpuUsage();
    for (let i = 0; i < messages; i += IN_FLIGHT) {
      await Promise.all(Array.from({ length: IN_FLIGHT }, (_, j) => js.publish(`${name}.x`, 'payload', { msgID: `${name}-${i + j}` })));
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / messages;
  } finally {
    await jsm.streams.delete(name);
    await nc.close();
  }
}

(async () => {
  const traced = [];
  const plain = [];
  for (let round = 0; round < 3; round++) {
    traced.push(await cpuPerPublish(false, round));
    plain.push(await cpuPerPublish(true, round));
  }
  const median = (values) => [...values].sort((a, b) => a - b)[1];
  console.log(
    `client CPU per publish, median of 3 rounds of ${messages}: with async traces ${median(traced).toFixed(1)} µs, without ${median(plain).toFixed(1)} µs (${(median(plain) / median(traced)).toFixed(2)}×)`,
  );
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
