import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadToolContracts } from '@onceport/config';
import {
  type ExecutionCommand,
  type HttpToolContract,
  type ToolContract,
  fingerprintIntent,
  newExecutionId,
  parseKeyring,
} from '@onceport/domain';
import type { MikroORM } from '@mikro-orm/postgresql';
import { executionStream, openOrm, runMigrations } from '@onceport/event-store';
import { readModelEntities } from '@onceport/read-models';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { CredentialResolver, HttpChannel } from '@onceport/target-channels';
import { type ServicePorts, openServicePorts } from '@onceport/service-kit';
import { testArgumentSealer } from '@onceport/service-kit/testing';
import { reconcilerMigrations } from '../reconciler-migrations';
import { SettleExecutionHandler } from '../settle-execution/settle-execution.handler';
import { Sweeper } from './sweeper';

const DEMO = join(__dirname, '../../../domain/test/fixtures/contracts/demo.yaml');
const keyring = parseKeyring(`k1:${randomBytes(32).toString('base64')}`);
const PROBE_PATH = /^\/v1\/deployments\/by-key\/([^/?]+)$/;

/**
 * Two reconciler replicas on one database share the due executions: each is probed by exactly one
 * of them. The target counts the probe requests it gets per execution and holds its first answers
 * until both replicas are probing, so the replicas' sweeps overlap.
 */
describe('Sweeper replicas (real PostgreSQL, real HTTP target counting probes)', () => {
  let db: TestDatabase;
  const runtimes: ServicePorts[] = [];
  const channels: HttpChannel[] = [];
  const orms: MikroORM[] = [];
  let server: Server;
  const probes = new Map<string, number>();
  let contracts: ReadonlyMap<string, ToolContract>;
  const held: (() => void)[] = [];
  let gateOpen = false;
  let gateTimer: NodeJS.Timeout | undefined;
  const openGate = (): void => {
    gateOpen = true;
    clearTimeout(gateTimer);
    for (const answer of held.splice(0)) answer();
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    server = createServer((req, res) => {
      const match = PROBE_PATH.exec(req.url ?? '');
      if (req.method !== 'GET' || !match?.[1]) {
        res.writeHead(404).end();
        return;
      }
      const id = decodeURIComponent(match[1]);
      probes.set(id, (probes.get(id) ?? 0) + 1);
      const answer = (): void =>
        void setTimeout(
          () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `dep_${id}`, state: 'succeeded' })),
          40,
        );
      if (gateOpen) return answer();
      // Held until more probes wait than one replica's four workers can send: the other replica is at
      // work too, however the two sweeps are spread in time (10 s at most, then answered anyway).
      held.push(answer);
      gateTimer ??= setTimeout(openGate, 10_000);
      if (held.length > 4) openGate();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dir = mkdtempSync(join(tmpdir(), 'sweeper-replicas-'));
    writeFileSync(join(dir, 'demo.yaml'), readFileSync(DEMO, 'utf8').replace(/origin: https:\/\/[a-z.]+/g, `origin: ${origin}`));
    contracts = (await loadToolContracts(dir)).byName;
  });
  afterAll(async () => {
    for (const channel of channels) await channel.close();
    for (const orm of orms) await orm.close();
    for (const runtime of runtimes) await runtime.close();
    server.close();
    server.closeAllConnections();
    await db.drop();
  });

  async function replica(name: string): Promise<{ runtime: ServicePorts; sweeper: Sweeper }> {
    const runtime = await openServicePorts({
      serviceName: `sweeper-${name}`,
      databaseUrl: db.url,
      natsUrl: 'nats://127.0.0.1:4222',
      delivery: 'in_process',
    });
    await runMigrations(runtime.config.databaseUrl, reconcilerMigrations);
    const channel = new HttpChannel();
    const orm = await openOrm({ databaseUrl: db.url, entities: readModelEntities });
    orms.push(orm);
    runtimes.push(runtime);
    channels.push(channel);
    const settle = new SettleExecutionHandler({
      commands: runtime.commands,
      results: runtime.results,
      tracer: runtime.tracer,
      contracts,
      channel,
      sealer: testArgumentSealer(),
      credentials: new CredentialResolver({ ONCEPORT_CREDENTIAL_DEPLOY_API: 't' }, null),
      reconcilerId: name,
      limits: { maxProbes: 3, probeBackoffMs: 10, maxProbeBackoffMs: 20, maxAttempts: 3 },
    });
    const sweeper = new Sweeper(
      runtime,
      orm.em,
      settle,
      { intervalMs: 60_000, redeliverAfterMs: 1_000, batch: 200, concurrency: 4, claimMs: 60_000, replicaId: name },
      () => undefined,
    );
    return { runtime, sweeper };
  }

  async function deadDispatch(runtime: ServicePorts): Promise<string> {
    const contract = contracts.get('create_deployment') as HttpToolContract;
    const args = { project: `p${randomBytes(3).toString('hex')}`, environment: 'staging', version: '1', strategy: 'rolling' };
    const id = newExecutionId(Date.now(), randomBytes(10));
    const intent = fingerprintIntent({ contract, actor: 'agent:s', intentScope: 'scope', arguments: args }, keyring);
    const steps: ((now: Date) => ExecutionCommand)[] = [
      (now) => ({
        type: 'AcceptExecution',
        metadata: { now },
        data: {
          executionId: id,
          tool: contract.name,
          channel: 'http',
          actor: 'agent:s',
          agentProcess: null,
          intentScope: 'scope',
          fingerprint: intent.fingerprint,
          record: intent.record,
          arguments: args,
          effectClass: contract.effect,
          approval: 'none',
          correlationWindowMs: 3_600_000,
          ledgerRetentionMs: null,
          clientIdempotencyKey: null,
        },
      }),
      (now) => ({ type: 'AuthorizeExecution', metadata: { now }, data: { basis: 'policy', policyVersion: 'p' } }),
      // A dispatcher that died after DispatchStarted: the lease is over at once.
      (now) => ({ type: 'StartDispatch', metadata: { now }, data: { dispatcherId: 'dead', leaseMs: 1 } }),
    ];
    for (const step of steps) await runtime.commands.handle(executionStream(id), (_l, now) => step(now), { causationId: 't' });
    return id;
  }

  it('split the due executions: every one probed exactly once, both replicas did some of the work', async () => {
    const a = await replica('replica-a');
    const b = await replica('replica-b');
    const ids = await Promise.all(Array.from({ length: 24 }, () => deadDispatch(a.runtime)));
    await new Promise((resolve) => setTimeout(resolve, 10));

    await Promise.all([a.sweeper.sweepOnce(), b.sweeper.sweepOnce()]);

    const loaded = await Promise.all(ids.map((id) => a.runtime.commands.load(executionStream(id))));
    expect(loaded.map((l) => l.state.status)).toEqual(ids.map(() => 'completed_result_not_delivered'));
    expect(ids.map((id) => probes.get(id) ?? 0)).toEqual(ids.map(() => 1));
    const settledBy = new Set(loaded.map((l) => l.events.find((e) => e.type === 'OutcomeSettled')?.metadata.actor));
    expect(settledBy).toEqual(new Set(['svc:reconciler:replica-a', 'svc:reconciler:replica-b']));
  });
});
