import {
  VAULT_STREAM_ID,
  executionEventRegistry,
  executionIdOfStream,
  executionStreamId,
  isSessionStream,
  parseEvent,
  parseSessionEvent,
  parseVaultEvent,
  sessionEventRegistry,
  sessionStreamId,
  vaultEventRegistry,
} from '@onceport/contracts';
import { type RecordedEvent, everyVersionOf, recordedHistories, recordedStreams, unrecorded } from '@onceport/contracts/testing';
import { type JsonObject, PostgresEventStore, executionStream, CommandHandler } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { toWireEvent } from '@onceport/messaging';
import { allMigrations, initTracing } from '@onceport/service-kit';
import { hashApiKey } from '@onceport/config';
import { createHandler, delivered, seedAccepted, testDirectory } from './testing/authorization-fixtures';
import { changeVault } from './vault/change-vault';

/**
 * Consumer-driven contract: the authorization service reads every ExecutionAccepted ever recorded,
 * and everything it writes is readable by the contracts' own parsers (its consumers read with those).
 */
/** What it reads: ExecutionAccepted over JetStream (see ExecutionAcceptedConsumer), every execution event when it loads a stream, the vault and session streams. */
const CONSUMED = [
  ...everyVersionOf(['ExecutionAccepted'], (type) => executionEventRegistry.currentVersion(type)),
  ...everyVersionOf(executionEventRegistry.types, (type) => executionEventRegistry.currentVersion(type)),
  ...everyVersionOf(vaultEventRegistry.types, (type) => vaultEventRegistry.currentVersion(type)),
  ...everyVersionOf(sessionEventRegistry.types, (type) => sessionEventRegistry.currentVersion(type)),
];
const vaultStreams = recordedStreams('vault');
const sessionStreams = recordedStreams('sessions');

const recorded = Object.entries(recordedHistories).map(([name, history]) => ({ name, history: history.map((event) => parseEvent(event)) }));
const actorsOf = [...new Set(recorded.map(({ history }) => (history[0]?.type === 'ExecutionAccepted' ? history[0].data.actor : 'none')))];

function actorsYaml(tools: string, sessionGrant: 'automatic' | 'human'): string {
  const actors = actorsOf.map(
    (id, i) => `  - id: ${id}\n    api_keys_sha256: [${hashApiKey(`key-${i}`)}]\n    tools: ${tools}\n    session_grant: ${sessionGrant}`,
  );
  return `actors:\n${actors.join('\n')}\n`;
}

type Expect = (approval: string) => string;
const policies: { name: string; yaml: string; lockVault: boolean; expected: Expect }[] = [
  {
    name: 'every actor allowed, sessions granted automatically',
    yaml: actorsYaml('"*"', 'automatic'),
    lockVault: false,
    expected: (a) => (a === 'per_use' ? 'awaiting_approval' : 'authorized'),
  },
  {
    name: 'every actor allowed, sessions granted by a human',
    yaml: actorsYaml('"*"', 'human'),
    lockVault: false,
    expected: () => 'awaiting_approval',
  },
  { name: 'no actor allowed any tool', yaml: actorsYaml('[]', 'automatic'), lockVault: false, expected: () => 'denied' },
  { name: 'the vault locked', yaml: actorsYaml('"*"', 'automatic'), lockVault: true, expected: () => 'denied' },
];

describe('authorization against the recorded contracts (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;

  beforeAll(() => initTracing({ serviceName: 'authorization-contract-test', env: {} }));
  beforeEach(async () => {
    db = await createTestDatabase(allMigrations.filter((m) => !m.id.startsWith('00')));
    store = new PostgresEventStore(db.pool);
  });
  afterEach(() => db.drop());

  it('has recorded histories to check, each starting with ExecutionAccepted', () => {
    expect(recorded.length).toBeGreaterThan(0);
    for (const { history } of recorded) expect(history[0]?.type).toBe('ExecutionAccepted');
  });

  it('has a recorded example of every schema version of every event it consumes', () => {
    expect(unrecorded(CONSUMED)).toEqual([]);
  });

  it.each(vaultStreams.map((s) => [s.name, s] as const))(
    'decides by the recorded vault stream %s, after each of its events',
    async (_name, stream) => {
      expect(stream.streamId).toBe(VAULT_STREAM_ID);
      const commands = new CommandHandler(store);
      const handler = await createHandler(store, commands, { directory: testDirectory() });
      for (const [i, event] of stream.events.entries()) {
        await store.append(VAULT_STREAM_ID, [toStored(event)], { expectedVersion: i });
        const wire = await seedAccepted(commands, store, {
          actor: 'agent:deploy-bot',
          tool: 'get_build_status',
          agentProcess: `mcp-vault-${i}`,
        });
        expect(await handler.handle(wire, delivered)).toMatchObject({ decided: true });
        const { state } = await commands.load(executionStream(String(wire.data['executionId'])));
        expect({ after: event.type, status: state.status }).toEqual({ after: event.type, status: VAULT_EFFECT[event.type]?.status });
        if (state.status === 'denied')
          expect(state.denial).toMatchObject({ code: 'vault_locked', reason: expect.stringContaining(String(event.data['reason'])) });
      }
    },
  );

  it.each(sessionStreams.map((s) => [s.name, s] as const))(
    'authorizes the agent process of the recorded session stream %s without asking again',
    async (_name, stream) => {
      const { actor, agentProcess } = stream.context;
      if (!actor || !agentProcess) throw new Error(`${stream.name}: no actor and agentProcess recorded`);
      // The reader finds a grant by deriving the stream id: a change in that derivation loses every grant.
      expect(sessionStreamId(actor, agentProcess)).toBe(stream.streamId);
      await store.append(stream.streamId, stream.events.map(toStored), { expectedVersion: 0 });
      const commands = new CommandHandler(store);
      const yaml = `actors:\n  - id: ${actor}\n    api_keys_sha256: [${hashApiKey('key-session')}]\n    tools: "*"\n    session_grant: human\n`;
      const handler = await createHandler(store, commands, { directory: testDirectory(yaml) });
      const granted = await seedAccepted(commands, store, { actor, agentProcess, tool: 'create_deployment', approval: 'session' });
      const other = await seedAccepted(commands, store, {
        actor,
        agentProcess: `${agentProcess}-other`,
        tool: 'create_deployment',
        approval: 'session',
      });
      for (const wire of [granted, other]) expect(await handler.handle(wire, delivered)).toMatchObject({ decided: true });
      expect((await commands.load(executionStream(String(granted.data['executionId'])))).state.status).toBe('authorized');
      // The same call from a process without a recorded grant waits for a human: the grant made the difference.
      expect((await commands.load(executionStream(String(other.data['executionId'])))).state.status).toBe('awaiting_approval');
      expect(await store.readStream(stream.streamId)).toHaveLength(stream.events.length);
    },
  );

  it.each(policies)(
    'decides every recorded ExecutionAccepted with $name, and writes only events the contracts parse',
    async ({ yaml, lockVault, expected }) => {
      const commands = new CommandHandler(store);
      const handler = await createHandler(store, commands, { directory: testDirectory(yaml) });
      if (lockVault) await changeVault(commands, 'LockVault', 'ops:alice', 'contract test', { causationId: 'test' });
      for (const { history } of recorded) {
        const accepted = history[0]!;
        if (accepted.type !== 'ExecutionAccepted') throw new Error('history without ExecutionAccepted');
        const streamId = executionStreamId(accepted.data.executionId);
        await store.append(streamId, [toStored(accepted)], { expectedVersion: 0 });
        const [stored] = await store.readStream(streamId);
        expect(await handler.handle(toWireEvent(stored!), delivered)).toMatchObject({ decided: true });
        expect((await commands.load(executionStream(accepted.data.executionId))).state.status).toBe(expected(accepted.data.approval));
      }
      await expectEverythingParses(store);
    },
  );

  it('treats every recorded history, delivered again, as a redelivery: nothing is appended', async () => {
    const commands = new CommandHandler(store);
    const handler = await createHandler(store, commands, { directory: testDirectory(actorsYaml('"*"', 'automatic')) });
    for (const { history } of recorded) {
      const streamId = executionStreamId(history[0]!.data.executionId);
      await store.append(streamId, history.map(toStored), { expectedVersion: 0 });
      const [first] = await store.readStream(streamId);
      expect(await handler.handle(toWireEvent(first!), delivered)).toMatchObject({ decided: false });
      expect(await store.readStream(streamId)).toHaveLength(history.length);
    }
  });
});

/** What a recorded vault event must do to the next decision; a new vault event type needs its line here. */
const VAULT_EFFECT: Readonly<Record<string, { status: 'denied' | 'authorized' }>> = {
  VaultLocked: { status: 'denied' },
  VaultUnlocked: { status: 'authorized' },
};

function toStored(event: { type: string; schemaVersion: number; data: unknown; metadata: { eventId: string } } | RecordedEvent) {
  return {
    eventId: event.metadata.eventId,
    type: event.type,
    schemaVersion: event.schemaVersion,
    data: event.data as JsonObject,
    metadata: event.metadata as unknown as JsonObject,
  };
}

/** Every stored event, by the parser its stream's readers use. */
async function expectEverythingParses(store: PostgresEventStore): Promise<void> {
  const all = await store.readAll();
  const written = all.filter((event) => !(executionIdOfStream(event.streamId) !== null && event.type === 'ExecutionAccepted'));
  expect(written.length).toBeGreaterThan(0);
  for (const event of all) {
    const raw = {
      type: event.type,
      schemaVersion: event.schemaVersion,
      data: event.data,
      metadata: { ...event.metadata, eventId: event.eventId },
    };
    if (event.streamId === VAULT_STREAM_ID) expect(parseVaultEvent(raw).type).toBe(event.type);
    else if (isSessionStream(event.streamId)) expect(parseSessionEvent(raw).type).toBe(event.type);
    else if (executionIdOfStream(event.streamId) !== null) expect(parseEvent(raw).type).toBe(event.type);
    else throw new Error(`authorization wrote to an unexpected stream: ${event.streamId}`);
  }
}
