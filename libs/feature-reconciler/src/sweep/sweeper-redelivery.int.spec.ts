import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Msg } from '@nats-io/transport-node';
import { EXECUTION_STREAM_SUBJECTS, ExecutionAcceptedEvent } from '@onceport/contracts';
import { type ExecutionCommand, newExecutionId } from '@onceport/domain';
import { MCP_RETRY, acceptCommand } from '@onceport/domain/testing';
import { executionStream, openOrm, runMigrations } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import type { JetStreamDelivery } from '@onceport/messaging';
import { TestNatsServer, waitFor } from '@onceport/messaging/testing';
import { readModelEntities } from '@onceport/read-models';
import { type ServicePorts, openServicePorts } from '@onceport/service-kit';
import { reconcilerMigrations } from '../reconciler-migrations';
import type { SettleExecutionHandler } from '../settle-execution/settle-execution.handler';
import { Sweeper } from './sweeper';

/**
 * An execution no service acted on gets its newest event again on JetStream — the one a service acts
 * on. A retry that attached since is never sent on JetStream (nothing takes it): redelivered, it
 * would wake nobody, and the execution would stay where it is.
 */
describe('Sweeper redelivery (real PostgreSQL, real nats-server)', () => {
  let db: TestDatabase;
  let nats: TestNatsServer;
  let runtime: ServicePorts;
  let orm: MikroORM;

  beforeAll(async () => {
    [db, nats] = await Promise.all([createTestDatabase(), TestNatsServer.start()]);
    runtime = await openServicePorts({
      serviceName: 'sweeper-redelivery-test',
      databaseUrl: db.url,
      natsUrl: nats.url,
      delivery: 'jetstream',
    });
    await runMigrations(runtime.config.databaseUrl, reconcilerMigrations);
    orm = await openOrm({ databaseUrl: db.url, entities: readModelEntities });
  });
  afterAll(async () => {
    await orm?.close();
    await runtime?.close();
    await db?.drop();
    await nats?.stop();
  });

  it('redelivers ExecutionAccepted, not the RetryAttached recorded after it', async () => {
    const id = newExecutionId(Date.now(), randomBytes(10));
    // The domain's sample acceptance, made now: its correlation window is still open, so the sweep looks at it.
    const accept = (now: Date): ExecutionCommand => ({ ...acceptCommand({ executionId: id }), metadata: { now } });
    const attach = (now: Date): ExecutionCommand => ({
      type: 'AttachRetry',
      metadata: { now },
      data: { correlation: MCP_RETRY, agentProcess: null, clientIdempotencyKey: null, run: null },
    });
    await runtime.commands.handle(executionStream(id), (_loaded, now) => accept(now), { causationId: 't' });
    await runtime.commands.handle(executionStream(id), (_loaded, now) => attach(now), { causationId: 't' });

    const delivery = runtime.delivery as JetStreamDelivery;
    const redelivered: Msg[] = [];
    const subscription = delivery.connection?.subscribe(EXECUTION_STREAM_SUBJECTS, {
      callback: (_error, message) => {
        if (message.headers?.get('Nats-Msg-Id').includes(':redelivered:')) redelivered.push(message);
      },
    });
    try {
      const lines: { message: string; fields?: Record<string, unknown> }[] = [];
      const sweeper = new Sweeper(
        runtime,
        orm.em,
        // Nothing here is due for settling (an accepted execution): the settle step never calls it.
        {} as SettleExecutionHandler,
        { intervalMs: 60_000, redeliverAfterMs: 0, batch: 200, concurrency: 1, claimMs: 60_000, replicaId: 'sweep-redelivery' },
        (_level, message, fields) => lines.push({ message, ...(fields ? { fields } : {}) }),
      );
      await sweeper.sweepOnce();
      await waitFor(() => redelivered.length > 0, 10_000, 'a redelivery of the execution');
      expect(redelivered.map((message) => message.subject)).toEqual([ExecutionAcceptedEvent.subject]);
      expect(lines).toContainEqual({
        message: 'redelivering the last event of an execution nobody acted on',
        fields: expect.objectContaining({ executionId: id, event: 'ExecutionAccepted' }),
      });
    } finally {
      subscription?.unsubscribe();
    }
  });
});
