import { randomUUID } from 'node:crypto';
import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { executionStreamId } from '@onceport/contracts';
import { executionStream } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { type ServicePorts, ServiceKitModule, openServicePorts } from '@onceport/service-kit';
import { AuthorizationModule } from '../authorization.module';
import { approvalIdFor } from '../authorize-execution/decide-authorization';
import { KEYS, createHandler, delivered, demoContracts, seedAccepted, silentLog, testDirectory } from '../testing/authorization-fixtures';
import { ApprovalExpirySweep } from './approval-expiry.sweep';
import { executionsReadModel } from './executions-read-model';
import { APPROVALS_SUBSCRIBER } from './unfoldable-executions';

interface Line {
  readonly level: string;
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

/**
 * Issue #12's poison, met by the approver's side: an execution whose stream holds an event no
 * schema of ours reads (appended as a buggy or newer writer would, not a mock). The approvals list
 * and the expiry sweep skip that execution alone; it is logged and counted in the quarantine.
 */
describe('approvals and expiry beside an execution that cannot be folded (real PostgreSQL, HTTP)', () => {
  let db: TestDatabase;
  let ports: ServicePorts;
  let app: INestApplication;
  let root: string;
  const lines: Line[] = [];
  const log = (level: string, message: string, fields: Record<string, unknown> = {}): void => void lines.push({ level, message, fields });

  beforeAll(async () => {
    db = await createTestDatabase();
    ports = await openServicePorts({
      serviceName: 'authorization-poison-test',
      databaseUrl: db.url,
      natsUrl: 'nats://127.0.0.1:1',
      delivery: 'in_process',
      quarantineAfterAttempts: 2,
      log,
    });
    const feature = AuthorizationModule.forOptions({
      directory: testDirectory(),
      contracts: await demoContracts(),
      approvalTtlMs: 60_000,
      approvalSweepMs: 600_000,
      log,
    });
    @Module({ imports: [ServiceKitModule.forPorts(ports), feature] })
    class TestService {}
    // No event consumers: the calls are decided below, each with the deadline it needs.
    app = await NestFactory.create(TestService, { logger: false, bodyParser: false });
    await app.listen(0, '127.0.0.1');
    // The sweep is driven by hand (sweepOnce): its own timer is stopped before anything is seeded.
    await app.get(ApprovalExpirySweep).stop();
    root = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await app?.close();
    await ports?.close();
    await db?.drop();
  });

  const admin = async (path: string, method = 'GET'): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`${root}${path}`, { method, headers: { authorization: `Bearer ${KEYS.alice}` } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const listed = async (status: string): Promise<string[]> => {
    const answer = await admin(`/v1/admin/approvals?status=${status}`);
    expect(answer.status).toBe(200);
    return (answer.body['approvals'] as { execution_id: string }[]).map((a) => a.execution_id);
  };

  /** A call asking for a per-use approval, decided with `ttlMs` to its deadline (1 ms: lapsed at once). */
  async function awaitingApproval(ttlMs: number): Promise<string> {
    const handler = await createHandler(ports.store, ports.commands, { approvalTtlMs: ttlMs });
    const accepted = await seedAccepted(ports.commands, ports.store, { actor: 'agent:pay-bot', tool: 'charge_payment' });
    await handler.handle(accepted, delivered);
    return accepted.stream.id.replace('execution-', '');
  }

  /** An ApprovalGranted whose data no schema of ours reads, appended after what the stream holds. */
  async function poison(executionId: string): Promise<string> {
    const eventId = randomUUID();
    const { version } = await ports.commands.load(executionStream(executionId));
    await ports.store.append(
      executionStreamId(executionId),
      [
        {
          eventId,
          type: 'ApprovalGranted',
          schemaVersion: 1,
          data: { executionId, written_by: 'a writer of another version' },
          metadata: { correlationId: executionId, causationId: 'poison' },
        },
      ],
      { expectedVersion: version },
    );
    return eventId;
  }

  it('the list answers with the other approvals, the others still expire, and the poison is logged and quarantined', async () => {
    // The poisoned ones are the oldest: first in every list and in the expiry sweep's order.
    const poisonedPending = await awaitingApproval(600_000);
    const poisonedLapsed = await awaitingApproval(1);
    const pending = await awaitingApproval(600_000);
    const lapsed = await awaitingApproval(1);
    // The read model knows all four before the poison arrives (the projection then stalls on it until quarantined).
    await executionsReadModel(ports.pool, silentLog).catchUp();
    const poisonEvents = { [poisonedPending]: await poison(poisonedPending), [poisonedLapsed]: await poison(poisonedLapsed) };
    await expect(ports.commands.load(executionStream(poisonedPending))).rejects.toThrow(/ApprovalGranted/);

    expect(await listed('pending')).toEqual([pending]);
    expect((await listed('all')).sort()).toEqual([pending, lapsed].sort());
    expect(await app.get(ApprovalExpirySweep).sweepOnce()).toBe(1);
    expect((await ports.commands.load(executionStream(lapsed))).state).toMatchObject({
      status: 'denied',
      denial: { code: 'approval_expired' },
    });
    expect(await listed('expired')).toEqual([lapsed]);
    expect((await admin(`/v1/admin/approvals/${approvalIdFor(pending)}`)).body).toMatchObject({ status: 'pending' });

    // Logged per skip until the quarantine takes the event (2 attempts here), then once by the quarantine.
    // The list loads its items concurrently: the skips are logged in the order the loads end.
    const skips = lines.filter((l) => l.message === 'approval skipped: its execution cannot be folded');
    const byExecution = (a: unknown[], b: unknown[]): number => String(a[1]).localeCompare(String(b[1]));
    expect(skips.map((l) => [l.level, l.fields['executionId'], l.fields['doing'], l.fields['eventId']]).sort(byExecution)).toEqual(
      [
        ['warn', poisonedPending, 'approvals list', poisonEvents[poisonedPending]],
        ['warn', poisonedLapsed, 'approvals list', poisonEvents[poisonedLapsed]],
      ].sort(byExecution),
    );
    const quarantined = lines.filter((l) => l.message === 'event quarantined' && l.fields['subscriber'] === APPROVALS_SUBSCRIBER);
    expect(quarantined.map((l) => l.fields['eventId']).sort()).toEqual(Object.values(poisonEvents).sort());

    // Counted where every poison event is: the quarantine an operator lists, and its metrics.
    const entries = await admin(`/v1/admin/quarantine?status=all&subscriber=${APPROVALS_SUBSCRIBER}`);
    expect(
      (entries.body['entries'] as { event_id: string; stream_id: string; status: string; attempts: number }[])
        .map(({ event_id, stream_id, status, attempts }) => ({ event_id, stream_id, status, attempts }))
        .sort((a, b) => a.event_id.localeCompare(b.event_id)),
    ).toEqual(
      Object.entries(poisonEvents)
        .map(([executionId, eventId]) => ({
          event_id: eventId,
          stream_id: executionStreamId(executionId),
          status: 'quarantined',
          attempts: 2,
        }))
        .sort((a, b) => a.event_id.localeCompare(b.event_id)),
    );
    const metrics = await (await fetch(`${root}/metrics`)).text();
    expect(metrics).toContain(`onceport_events_quarantined_total{subscriber="${APPROVALS_SUBSCRIBER}"} 2`);
    expect(metrics).toContain(`onceport_quarantine_open_entries{subscriber="${APPROVALS_SUBSCRIBER}"} 2`);

    // An operator's retry is taken by the next sweep: the stream still does not fold, so it stays quarantined.
    const eventId = poisonEvents[poisonedLapsed];
    expect((await admin(`/v1/admin/quarantine/${APPROVALS_SUBSCRIBER}/${eventId}/retry`, 'POST')).body).toMatchObject({
      status: 'retry_requested',
    });
    expect(await app.get(ApprovalExpirySweep).sweepOnce()).toBe(0);
    expect((await admin(`/v1/admin/quarantine/${APPROVALS_SUBSCRIBER}/${eventId}`)).body).toMatchObject({
      status: 'quarantined',
      attempts: 3,
    });
    expect(await listed('pending')).toEqual([pending]);
  });
});
