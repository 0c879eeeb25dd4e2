import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '@onceport/messaging/testing';
import { type Tracing, initTracing } from '@onceport/service-kit';
import { DispatchHarness, NO_HEADERS } from '../../test/dispatch-harness';
import { newTraceparent } from '../../test/seed-execution';
import { executionStream } from '@onceport/event-store';

describe('DispatchExecutionHandler against a real target (real PostgreSQL, real HTTP)', () => {
  let harness: DispatchHarness;
  let tracing: Tracing;
  const traceDir = mkdtempSync(join(tmpdir(), 'onceport-dispatch-spans-'));
  const spanFile = join(traceDir, 'spans.jsonl');

  beforeAll(() => {
    tracing = initTracing({ serviceName: 'dispatcher', env: { ONCEPORT_TRACE_FILE: spanFile } });
  });
  afterAll(async () => {
    await tracing.shutdown();
    rmSync(traceDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    harness = await DispatchHarness.start();
    // A duplicate send must show up as a second effect, not be absorbed by the target's own dedup.
    harness.target.setBehavior({ honour_idempotency: false });
  });
  afterEach(() => harness.close());

  const dispatchSpan = (
    traceId: string | undefined,
  ): { spanId: string; parentSpanId: string | null; attributes: Record<string, unknown> } | undefined => {
    if (!existsSync(spanFile)) return undefined;
    const spans = readFileSync(spanFile, 'utf8')
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            traceId: string;
            spanId: string;
            parentSpanId: string | null;
            name: string;
            attributes: Record<string, unknown>;
          },
      );
    return spans.find((s) => s.traceId === traceId && s.name === 'dispatch create_deployment');
  };

  it('sends an authorized execution once: 201 → completed_result_not_delivered, result stored by reference, 1 effect', async () => {
    const executionId = await harness.seed();
    const { handler } = harness.dispatcher({ tracer: tracing.tracer });

    const summary = await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    expect(summary.attempts).toEqual([expect.objectContaining({ kind: 'closed', attempt: 1, outcome: 'observed', retryable: false })]);
    expect(await harness.status(executionId)).toBe('completed_result_not_delivered');
    expect(harness.target.effectCount({ route: 'deployments' })).toBe(1);
    const events = await harness.events(executionId);
    expect(events.map((e) => e.type)).toEqual(['ExecutionAccepted', 'ExecutionAuthorized', 'DispatchStarted', 'OutcomeObserved']);
    const observed = events[3];
    if (observed?.type !== 'OutcomeObserved' || observed.data.result === null) throw new Error('expected an OutcomeObserved with a result');
    expect(observed.data).toMatchObject({ attempt: 1, targetStatus: 201, succeeded: true });
    const stored = await harness.results.get(observed.data.result.ref);
    expect(stored?.reference.digest).toBe(
      `sha256:${createHash('sha256')
        .update(stored?.body ?? Buffer.alloc(0))
        .digest('hex')}`,
    );
    expect(JSON.parse(stored?.body.toString('utf8') ?? '{}')).toMatchObject({ state: 'succeeded', idempotency_key: executionId });
  });

  it('writes the answer and OutcomeObserved in one transaction: one commit between the target answering and the outcome on record', async () => {
    const executionId = await harness.seed();

    await harness.dispatcher().handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    const written = await harness.db.pool.query<{ result_xid: string; event_xid: string }>(
      `SELECT r.xmin::text AS result_xid, (e.transaction_id::text::bigint % 4294967296)::text AS event_xid
         FROM onceport.events e JOIN onceport.results r ON r.ref = e.data->'result'->>'ref'
        WHERE e.stream_id = $1 AND e.event_type = 'OutcomeObserved'`,
      [`execution-${executionId}`],
    );
    expect(written.rows).toHaveLength(1);
    expect(written.rows[0]?.result_xid).toBe(written.rows[0]?.event_xid);
  });

  it('passes the execution id in the contract’s idempotency header and names the trigger as the cause', async () => {
    const executionId = await harness.seed();
    const { handler } = harness.dispatcher();

    await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    const [effect] = harness.target.effects({ route: 'deployments' });
    expect(effect).toMatchObject({
      idempotencyKey: executionId,
      params: { project: 'shop' },
      body: { environment: 'staging', version: '1.4.2', strategy: 'rolling' },
    });
    const started = (await harness.events(executionId)).find((e) => e.type === 'DispatchStarted');
    expect(started?.data).toMatchObject({ attempt: 1, dispatcherId: 'dispatcher-test' });
    expect(started?.metadata).toMatchObject({
      actor: 'svc:dispatcher',
      causationId: (await harness.wire(executionId, 'ExecutionAuthorized')).metadata.eventId,
    });
  });

  it('records a target that accepts and then drops the connection as dispatched_unknown: 1 effect, never retried', async () => {
    harness.target.setBehavior({ route: 'deployments', accept_then_drop: true });
    const executionId = await harness.seed();
    const { handler } = harness.dispatcher();

    const summary = await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);
    await sleep(300); // time for a (wrong) retry to show

    expect(summary.attempts).toEqual([expect.objectContaining({ kind: 'closed', outcome: 'unknown', retryable: false })]);
    expect(await harness.status(executionId)).toBe('dispatched_unknown');
    expect(harness.target.effectCount({ route: 'deployments' })).toBe(1);
    const events = await harness.events(executionId);
    expect(events.filter((e) => e.type === 'DispatchStarted')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({
      type: 'OutcomeUnknown',
      data: { attempt: 1, reason: expect.stringMatching(/connection_lost|response_error/) },
    });
  });

  it('records a refusal by the target as observed and failed (a 4xx is an answer, not a reason to retry)', async () => {
    harness.target.setBehavior({ route: 'deployments', fail_status: 422 });
    const executionId = await harness.seed();
    const { handler } = harness.dispatcher();

    await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    expect(await harness.status(executionId)).toBe('failed');
    expect((await harness.events(executionId)).at(-1)).toMatchObject({
      type: 'OutcomeObserved',
      data: { targetStatus: 422, succeeded: false },
    });
  });

  it('still records the answer when the reconciler declared the attempt unknown meanwhile (an observation beats a probe)', async () => {
    harness.target.setBehavior({ route: 'deployments', delay_ms: 3_000 });
    const executionId = await harness.seed();
    const { handler } = harness.dispatcher();

    const handling = handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);
    while (!(await harness.events(executionId)).some((e) => e.type === 'DispatchStarted')) await sleep(10);
    await harness.commands.handle(
      executionStream(executionId),
      (_l, now) => ({ type: 'MarkOutcomeUnknown', data: { attempt: 1, reason: 'lease expired' }, metadata: { now } }),
      { causationId: 'reconciler' },
    );
    const summary = await handling;

    expect(summary.attempts).toEqual([expect.objectContaining({ kind: 'closed', outcome: 'observed' })]);
    expect(await harness.status(executionId)).toBe('completed_result_not_delivered');
    expect(harness.target.effectCount()).toBe(1);
  });

  it('dispatches in a span of its own inside the trigger’s trace; the events it appends carry that span', async () => {
    const traceparent = newTraceparent();
    const traceId = traceparent.split('-')[1];
    const executionId = await harness.seed('create_deployment', { traceparent });
    const { handler } = harness.dispatcher({ tracer: tracing.tracer });

    await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    const appended = (await harness.events(executionId)).slice(2);
    const parents = new Set(appended.map((e) => e.metadata.traceparent?.split('-')[2]));
    expect(appended.map((e) => e.metadata.traceparent?.split('-')[1])).toEqual([traceId, traceId]);
    expect(parents.size).toBe(1);
    // The batch span processor exports every 200 ms.
    await waitFor(() => dispatchSpan(traceId) !== undefined, 10_000, 'the exported span');
    const span = dispatchSpan(traceId);
    expect(span).toMatchObject({
      parentSpanId: traceparent.split('-')[2],
      spanId: [...parents][0],
      attributes: {
        'onceport.execution_id': executionId,
        'onceport.tool': 'create_deployment',
        'onceport.attempt': 1,
        'onceport.outcome': 'observed',
      },
    });
  });

  it('prefers the trace context of the message headers over the one in the event', async () => {
    const executionId = await harness.seed('create_deployment', { traceparent: newTraceparent() });
    const headers = { traceparent: newTraceparent(), tracestate: null };
    const { handler } = harness.dispatcher({ tracer: tracing.tracer });

    await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), headers);

    const started = (await harness.events(executionId)).find((e) => e.type === 'DispatchStarted');
    expect(started?.metadata.traceparent?.split('-')[1]).toBe(headers.traceparent.split('-')[1]);
  });
});
