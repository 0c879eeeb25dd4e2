// Records contract fixtures by running the real producers against a throwaway PostgreSQL database
// and dumping the rows they wrote, as the store holds them.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { executionStreamId, runIntentScope, runStreamId, sessionStreamId } from '@onceport/contracts';
import { type ExecutionCommand, newExecutionId } from '@onceport/domain';
import {
  CommandHandler,
  type EventCause,
  type JsonObject,
  PostgresEventStore,
  type StoredEvent,
  executionStream,
  runStream,
  sessionStream,
} from '@onceport/event-store';
import { createTestDatabase } from '@onceport/event-store/testing';
import { changeVault } from '@onceport/feature-authorization';
import { allMigrations, initTracing } from '@onceport/service-kit';
import { authorizationHandler, delivered, directory, seedAccepted } from './authorization-setup';

/** The committed fixtures; the recordings that continue a recorded history read their prefix from here. */
export const COMMITTED_FIXTURES = join(__dirname, '../../../libs/contracts/test/fixtures');

interface Envelope {
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: JsonObject;
  readonly metadata: JsonObject & { readonly eventId: string; readonly occurredAt?: string };
}

const traceparent = (): string => `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
const envelopes = (stored: readonly StoredEvent[]): Envelope[] =>
  stored.map((e) => ({ type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: { eventId: e.eventId, ...e.metadata } }));
/** A clock the recording moves by hand, so recorded times read like a real day. */
function clockAt(iso: string): { set: (iso: string) => Date; clock: () => Date } {
  let now = new Date(iso);
  return { set: (next) => (now = new Date(next)), clock: () => now };
}

const runRef = (run: { runId: string; trigger: string }) => ({ runId: run.runId, trigger: run.trigger });

/** Runs `record` against a fresh database with the runtime's tables; always drops it. */
async function withStore(record: (store: PostgresEventStore) => Promise<void>): Promise<void> {
  const db = await createTestDatabase(allMigrations.filter((m) => !m.id.startsWith('00')));
  try {
    await record(new PostgresEventStore(db.pool));
  } finally {
    await db.drop();
  }
}

/** A committed history under fresh execution and event ids, appended as recorded (fixtures must not share a stream). */
async function appendRecorded(
  store: PostgresEventStore,
  name: string,
  count?: number,
): Promise<{ executionId: string; events: Envelope[] }> {
  const history = (JSON.parse(readFileSync(join(COMMITTED_FIXTURES, 'histories', `${name}.json`), 'utf8')) as Envelope[]).slice(0, count);
  const original = String(history[0]?.data['executionId']);
  const executionId = newExecutionId(Date.now(), randomBytes(10));
  let text = JSON.stringify(history).split(original).join(executionId);
  for (const e of history) text = text.split(e.metadata.eventId).join(randomUUID());
  const events = JSON.parse(text) as Envelope[];
  await store.append(
    executionStreamId(executionId),
    events.map((e) => ({ eventId: e.metadata.eventId, type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata })),
    { expectedVersion: 0 },
  );
  return { executionId, events };
}

/**
 * Records into `out` (same layout as the committed fixtures) and returns the files written, relative
 * to `out`. Does not cover the pipeline histories nor the intake streams (see the fixtures README).
 */
export async function recordFixtures(out: string): Promise<string[]> {
  initTracing({ serviceName: 'fixture-recorder', env: {} });
  const written: string[] = [];
  const write = (dir: string, name: string, value: unknown): void => {
    mkdirSync(join(out, dir), { recursive: true });
    writeFileSync(join(out, dir, `${name}.json`), `${JSON.stringify(value, null, 2)}\n`);
    written.push(`${dir}/${name}.json`);
  };

  // Vault: locked, then unlocked (changeVault, as the admin API calls it).
  await withStore(async (store) => {
    const time = clockAt('2026-03-05T09:12:00.000Z');
    const commands = new CommandHandler(store, { clock: time.clock });
    await changeVault(commands, 'LockVault', 'ops:alice', 'Deploy key leaked in a public repo: stop every call until it is rotated.', {
      causationId: 'http:req_V1LK',
      traceparent: traceparent(),
    });
    time.set('2026-03-05T10:41:30.000Z');
    await changeVault(commands, 'UnlockVault', 'ops:bob', 'Key rotated and the old one revoked.', {
      causationId: 'http:req_V2UN',
      traceparent: traceparent(),
    });
    write('vault', 'locked-then-unlocked', { streamId: 'vault', events: envelopes(await store.readStream('vault')) });
  });

  // Sessions: granted automatically (the authorization handler) and by a human (a GrantSession command, as the approval desk records it).
  await withStore(async (store) => {
    const time = clockAt('2026-03-05T11:02:17.400Z');
    const commands = new CommandHandler(store, { clock: time.clock });
    const handler = await authorizationHandler(store, commands);
    const auto = { actor: 'agent:deploy-bot', agentProcess: 'mcp-sess-4c1e' };
    const wire = await seedAccepted(commands, store, { ...auto, tool: 'create_deployment' }, traceparent());
    time.set('2026-03-05T11:02:17.460Z');
    await handler.handle(wire, delivered);
    const autoStream = sessionStreamId(auto.actor, auto.agentProcess);
    write('sessions', 'granted-automatically', {
      streamId: autoStream,
      context: auto,
      events: envelopes(await store.readStream(autoStream)),
    });

    const human = { actor: 'agent:human-bot', agentProcess: 'proc:human-bot-2207' };
    const humanWire = await seedAccepted(commands, store, { ...human, tool: 'create_deployment' }, traceparent());
    await handler.handle(humanWire, delivered);
    const now = time.set('2026-03-05T11:09:40.000Z');
    const grant = {
      ...human,
      basis: 'human' as const,
      grantedBy: 'ops:alice',
      policyVersion: directory().policyVersion,
      grantedAt: now.toISOString(),
    };
    const cause = {
      causationId: 'http:req_A7GR',
      correlationId: String(humanWire.data['executionId']),
      actor: 'ops:alice',
      traceparent: traceparent(),
    };
    const recorded =
      (
        await commands.handle(
          sessionStream(human.actor, human.agentProcess),
          (_session, at) => ({ type: 'GrantSession', data: grant, metadata: { now: at } }),
          cause,
        )
      ).appended.length > 0;
    if (!recorded) throw new Error('the human session grant was not recorded');
    const humanStream = sessionStreamId(human.actor, human.agentProcess);
    write('sessions', 'granted-by-a-human', {
      streamId: humanStream,
      context: human,
      events: envelopes(await store.readStream(humanStream)),
    });
  });

  // An approval rejected: the authorization handler asks, then the approval desk's RejectApproval.
  await withStore(async (store) => {
    const time = clockAt('2026-03-05T14:20:05.000Z');
    const commands = new CommandHandler(store, { clock: time.clock });
    const handler = await authorizationHandler(store, commands);
    const wire = await seedAccepted(
      commands,
      store,
      { actor: 'agent:pay-bot', tool: 'charge_payment', agentProcess: 'mcp-sess-e0a2' },
      traceparent(),
    );
    time.set('2026-03-05T14:20:05.080Z');
    await handler.handle(wire, delivered);
    const executionId = String(wire.data['executionId']);
    const requested = (await commands.load(executionStream(executionId))).events.find((e) => e.type === 'ApprovalRequested');
    if (requested?.type !== 'ApprovalRequested') throw new Error('no approval requested');
    time.set('2026-03-05T14:26:51.000Z');
    await commands.handle(
      executionStream(executionId),
      (_l, now) => ({
        type: 'RejectApproval',
        data: { approvalId: requested.data.approvalId, approver: 'ops:alice', reason: "Duplicate of last week's charge." },
        metadata: { now },
      }),
      { causationId: 'http:req_R3JX', actor: 'ops:alice', traceparent: traceparent() },
    );
    write('histories', 'approval-rejected', envelopes(await store.readStream(executionStreamId(executionId))));
  });

  // Reverted after completion (the revert endpoint's command), and correlation expired after the ledger retention (the sweeper's).
  await withStore(async (store) => {
    const happy = await appendRecorded(store, 'happy-path');
    const revertAt = new Date(Date.parse(String(happy.events.at(-1)?.metadata.occurredAt)) + 3 * 3600_000);
    await new CommandHandler(store, { clock: () => revertAt }).handle(
      executionStream(happy.executionId),
      (_l, now) => ({
        type: 'RevertExecution',
        data: { by: 'ops:alice', reason: 'Invoiced the wrong customer; credit note issued in billing.' },
        metadata: { now },
      }),
      { causationId: 'http:req_RV01', actor: 'ops:alice', traceparent: traceparent() },
    );
    write('histories', 'completed-then-reverted', envelopes(await store.readStream(executionStreamId(happy.executionId))));

    const undelivered = await appendRecorded(store, 'completed-undelivered-retry', 5);
    const sweepAt = new Date(Date.parse(String(undelivered.events[0]?.data['ledgerRetentionEndsAt'])) + 42_000);
    const id = undelivered.executionId;
    await new CommandHandler(store, { clock: () => sweepAt }).handle(
      executionStream(id),
      (_l, now) => ({ type: 'ExpireCorrelation', data: {}, metadata: { now } }),
      { causationId: `sweep:${id}`, actor: 'svc:reconciler' },
    );
    write('histories', 'undelivered-correlation-expired', envelopes(await store.readStream(executionStreamId(id))));
  });

  // A run (DESIGN.md §7): opened, a campaign e-mail sent in attempt 1, a forced replay, and attempt 2's
  // call of the same intent answered from the ledger (a RetryAttached naming attempt 2).
  await withStore(async (store) => {
    const time = clockAt('2026-12-01T09:00:00.000Z');
    const commands = new CommandHandler(store, { clock: time.clock });
    const run = { runId: 'campaign-winter-2026', actor: 'agent:mailer', trigger: 'ticket:OPS-812' };
    const runCause = { causationId: 'http:req_RN01', actor: run.actor, correlationId: runStreamId(run.runId), traceparent: traceparent() };
    await commands.handle(runStream(run.runId), (_l, now) => ({ type: 'OpenRun', data: run, metadata: { now } }), runCause);
    const executionId = newExecutionId(Date.now(), randomBytes(10));
    const scope = runIntentScope(run.trigger);
    const record = {
      actor: run.actor,
      tool: 'send_email',
      channel: 'http' as const,
      target: 'https://mail.example.com',
      credential_ref: 'mail-api',
      method: 'POST /v3/messages',
      arguments: { campaign_id: 'winter', recipient: 'ana@example.com' },
      intent_scope: scope,
    };
    const mcp = (id: number) => ({ transport: 'mcp' as const, jsonRpcId: id, sessionId: 'mcp-sess-91bd' });
    const cause = { causationId: 'mcp:mcp-sess-91bd:7', actor: run.actor, traceparent: traceparent() };
    const on = executionStream(executionId);
    const steps: { at: string; command: (now: Date) => ExecutionCommand | null; cause: EventCause }[] = [
      {
        at: '2026-12-01T09:00:01.000Z',
        cause,
        command: (now) => ({
          type: 'AcceptExecution',
          metadata: { now },
          data: {
            executionId,
            tool: 'send_email',
            channel: 'http',
            actor: run.actor,
            agentProcess: 'mcp-sess-91bd',
            intentScope: scope,
            fingerprint: `hmac-sha256:k1:${randomBytes(32).toString('hex')}`,
            record,
            arguments: { ...record.arguments, subject: 'Winter offers', body: 'Dear Ana, …' },
            effectClass: 'idempotent',
            approval: 'none',
            correlationWindowMs: 15 * 60_000,
            ledgerRetentionMs: 30 * 86_400_000,
            clientIdempotencyKey: null,
            run: { ...runRef(run), attempt: 1 },
            repeats: null,
          },
        }),
      },
      {
        at: '2026-12-01T09:00:01.040Z',
        cause: { causationId: 'svc:authorization' },
        command: (now) => ({ type: 'AuthorizeExecution', data: { basis: 'policy', policyVersion: 'pol-1' }, metadata: { now } }),
      },
      {
        at: '2026-12-01T09:00:01.080Z',
        cause: { causationId: 'svc:dispatcher' },
        command: (now) => ({ type: 'StartDispatch', data: { dispatcherId: 'dispatcher-7c9f', leaseMs: 30_000 }, metadata: { now } }),
      },
      {
        at: '2026-12-01T09:00:01.400Z',
        cause: { causationId: 'svc:dispatcher' },
        command: (now) => ({
          type: 'ObserveOutcome',
          data: {
            attempt: 1,
            targetStatus: 202,
            succeeded: true,
            result: { ref: 'results/sha256-9a', digest: `sha256:${'9a'.repeat(32)}`, size: 41, contentType: 'application/json' },
          },
          metadata: { now },
        }),
      },
      {
        at: '2026-12-01T09:00:01.450Z',
        cause,
        command: (now) => ({ type: 'RecordDelivery', data: { transport: 'mcp', replay: false, correlation: mcp(7) }, metadata: { now } }),
      },
    ];
    for (const step of steps) {
      time.set(step.at);
      await commands.handle(on, (_l, now) => step.command(now), { ...step.cause, correlationId: executionId });
    }
    time.set('2026-12-01T11:30:00.000Z');
    const check = { safe: false, unsafe: [] };
    await commands.handle(
      runStream(run.runId),
      (_l, now) => ({
        type: 'StartReplay',
        data: {
          after: 1,
          requestedBy: 'ops:alice',
          check,
          force: { by: 'ops:alice', reason: 'The mail provider lost the campaign log; resend what is missing.' },
        },
        metadata: { now },
      }),
      { ...runCause, causationId: 'http:req_RP02', actor: 'ops:alice' },
    );
    time.set('2026-12-01T11:31:12.000Z');
    const retry = { causationId: 'mcp:mcp-sess-a0c4:3', actor: run.actor, traceparent: traceparent(), correlationId: executionId };
    await commands.handle(
      on,
      (_l, now) => ({
        type: 'AttachRetry',
        data: {
          correlation: { transport: 'mcp', jsonRpcId: 3, sessionId: 'mcp-sess-a0c4' },
          agentProcess: 'mcp-sess-a0c4',
          clientIdempotencyKey: null,
          run: { ...runRef(run), attempt: 2 },
        },
        metadata: { now },
      }),
      retry,
    );
    time.set('2026-12-01T11:31:12.030Z');
    await commands.handle(
      on,
      (_l, now) => ({
        type: 'RecordDelivery',
        data: { transport: 'mcp', replay: true, correlation: { transport: 'mcp', jsonRpcId: 3, sessionId: 'mcp-sess-a0c4' } },
        metadata: { now },
      }),
      retry,
    );
    write('histories', 'run-attempt-2-ledger-hit', envelopes(await store.readStream(executionStreamId(executionId))));
    write('runs', 'opened-then-forced-replay', {
      streamId: runStreamId(run.runId),
      context: { runId: run.runId },
      events: envelopes(await store.readStream(runStreamId(run.runId))),
    });
  });
  return written;
}
