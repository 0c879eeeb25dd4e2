// Contract test of the dispatcher (CONVENTIONS.md, "recorded histories as fixtures"): it must handle
// every schema version of every event it consumes, as recorded, and write only events every
// consumer can read.
import { VAULT_STREAM_ID, executionEventRegistry, executionStreamId, parseEvent, vaultEventRegistry } from '@onceport/contracts';
import { everyVersionOf, recordedHistories, recordedStreams, unrecorded } from '@onceport/contracts/testing';
import { type HttpToolContract, type ToolContract } from '@onceport/domain';
import { relabelHistory } from '@onceport/domain/testing';
import { type JsonObject, executionStream } from '@onceport/event-store';
import { DispatchHarness, NO_HEADERS, deadOrigin } from '../test/dispatch-harness';
import { DISPATCH_TRIGGER_TYPES } from './dispatch-execution/dispatch-trigger';

interface RecordedEvent {
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: JsonObject & { readonly executionId: string; readonly tool?: string; readonly channel?: string };
  readonly metadata: JsonObject & { readonly eventId: string };
}

const consumed: readonly string[] = DISPATCH_TRIGGER_TYPES;
/** Besides its triggers it reads every execution event (it loads the stream) and the vault stream (right before every send). */
const ALSO_READ = [
  ...everyVersionOf(executionEventRegistry.types, (type) => executionEventRegistry.currentVersion(type)),
  ...everyVersionOf(vaultEventRegistry.types, (type) => vaultEventRegistry.currentVersion(type)),
];
const histories = Object.entries(recordedHistories).map(([name, events]) => ({ name, events: events as readonly RecordedEvent[] }));
const triggerCases = histories.flatMap(({ name, events }) =>
  events.flatMap((event, index) =>
    consumed.includes(event.type) ? [{ name, index, type: event.type, version: event.schemaVersion, events }] : [],
  ),
);

describe('dispatcher contract', () => {
  let harness: DispatchHarness;
  let contracts: ToolContract[];

  beforeAll(async () => {
    harness = await DispatchHarness.start();
    harness.target.setBehavior({ honour_idempotency: false });
    // Every recorded HTTP tool becomes a contract on the test target; the SSH one is the SSH demo.
    const template = harness.contract('create_deployment') as HttpToolContract;
    const tools = new Set(
      histories.flatMap(({ events }) => (events[0]?.data.channel === 'http' && events[0].data.tool ? [events[0].data.tool] : [])),
    );
    contracts = [
      ...[...tools].map((name): ToolContract => ({ ...template, name, target: { ...template.target, path: '/v1/payments' } })),
      harness.contract('run_migration'),
    ];
  });
  afterAll(() => harness.close());

  it('has a recorded example of every schema version of every event it consumes', () => {
    const missing = consumed.flatMap((type) =>
      Array.from({ length: executionEventRegistry.currentVersion(type) ?? 0 }, (_, i) => i + 1)
        .filter((version) => !triggerCases.some((c) => c.type === type && c.version === version))
        .map((version) => `${type} v${version}`),
    );
    expect(missing).toEqual([]);
    expect(unrecorded(ALSO_READ)).toEqual([]);
  });

  it.each(triggerCases.map((c) => [c.name, c.index, c.type, c.version, c] as const))(
    'handles %s #%d (%s v%d) as recorded',
    async (_n, index, _t, _v, testCase) => {
      const { executionId, events } = relabelHistory(testCase.events, index + 1);
      const streamId = executionStreamId(executionId);
      await harness.store.append(
        streamId,
        events.map((e) => ({
          eventId: e.metadata.eventId,
          type: e.type,
          schemaVersion: e.schemaVersion,
          data: e.data,
          metadata: e.metadata,
        })),
        { expectedVersion: 0 },
      );
      const before = await harness.commands.load(executionStream(executionId));
      const { handler } = harness.dispatcher({ contracts });

      await handler.handle(await harness.wire(executionId, testCase.type), NO_HEADERS);

      const appended = (await harness.store.readStream(streamId)).slice(events.length);
      if (before.state.status === 'authorized') {
        expect(appended[0]?.type).toBe('DispatchStarted');
        expect(appended.length).toBeGreaterThanOrEqual(2);
      } else {
        expect(appended).toEqual([]);
      }
      for (const event of appended) {
        expect(event.schemaVersion).toBe(executionEventRegistry.currentVersion(event.type));
        expect(() =>
          parseEvent({
            type: event.type,
            schemaVersion: event.schemaVersion,
            data: event.data,
            metadata: { ...event.metadata, eventId: event.eventId },
          }),
        ).not.toThrow();
      }
    },
  );

  it('writes events that validate for every way an attempt can end', async () => {
    const dead = await deadOrigin();
    const runs: { behave: () => void; contracts?: readonly ToolContract[]; credentialEnv?: NodeJS.ProcessEnv }[] = [
      { behave: () => harness.target.setBehavior({ normal: true }) },
      { behave: () => harness.target.setBehavior({ fail_status: 422, times: 1 }) },
      { behave: () => harness.target.setBehavior({ accept_then_drop: true, times: 1 }) },
      { behave: () => undefined, contracts: harness.contractsAt(dead) },
      { behave: () => undefined, credentialEnv: {} },
    ];
    const types = new Set<string>();
    for (const run of runs) {
      run.behave();
      const executionId = await harness.seed();
      const { handler } = harness.dispatcher({
        config: { retries: 1, retryBackoffMs: 1 },
        ...(run.contracts ? { contracts: run.contracts } : {}),
        ...(run.credentialEnv ? { credentialEnv: run.credentialEnv } : {}),
      });
      await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);
      for (const event of (await harness.store.readStream(executionStreamId(executionId))).slice(2)) {
        types.add(event.type);
        expect(() =>
          parseEvent({
            type: event.type,
            schemaVersion: event.schemaVersion,
            data: event.data,
            metadata: { ...event.metadata, eventId: event.eventId },
          }),
        ).not.toThrow();
      }
    }
    expect([...types].sort()).toEqual(['DispatchFailedBeforeSend', 'DispatchStarted', 'OutcomeObserved', 'OutcomeUnknown']);
  });
});

describe('dispatcher contract: the recorded vault streams', () => {
  let harness: DispatchHarness;

  beforeAll(async () => {
    harness = await DispatchHarness.start();
  });
  afterAll(() => harness.close());

  it.each(recordedStreams('vault').map((s) => [s.name, s] as const))(
    '%s: checked before each send, after each of its events',
    async (_name, stream) => {
      expect(stream.streamId).toBe(VAULT_STREAM_ID);
      for (const [i, event] of stream.events.entries()) {
        await harness.store.append(
          VAULT_STREAM_ID,
          [
            {
              eventId: event.metadata.eventId,
              type: event.type,
              schemaVersion: event.schemaVersion,
              data: event.data as JsonObject,
              metadata: event.metadata as JsonObject,
            },
          ],
          { expectedVersion: i },
        );
        const executionId = await harness.seed();
        const effects = harness.target.effectCount();
        await harness.dispatcher().handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);
        const expected = VAULT_EFFECT[event.type];
        expect({ after: event.type, status: await harness.status(executionId), effects: harness.target.effectCount() - effects }).toEqual({
          after: event.type,
          ...expected,
        });
        if (expected?.status === 'denied') {
          expect((await harness.events(executionId)).at(-1)).toMatchObject({
            type: 'ExecutionDenied',
            data: { code: 'vault_locked', reason: expect.stringContaining(String(event.data['reason'])) },
          });
        }
      }
    },
  );
});

/** What a recorded vault event must do to the next send; a new vault event type needs its line here. */
const VAULT_EFFECT: Readonly<Record<string, { status: string; effects: number }>> = {
  VaultLocked: { status: 'denied', effects: 0 },
  VaultUnlocked: { status: 'completed_result_not_delivered', effects: 1 },
};
