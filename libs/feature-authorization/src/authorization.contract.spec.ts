import { VAULT_STREAM_ID, executionIdOfStream, executionStreamId, isSessionStream, parseEvent, parseSessionEvent, parseVaultEvent } from '@onceport/contracts';
import { recordedHistories } from '@onceport/contracts/testing';
import { type JsonObject, PostgresEventStore } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { toWireEvent } from '@onceport/messaging';
import { ExecutionRepository, allMigrations, initTracing } from '@onceport/runtime';
import { hashApiKey } from '@onceport/config';
import { envelopeOf } from './shared/new-event';
import { createHandler, delivered, testDirectory } from './testing/authorization-fixtures';
import { VaultRepository } from './vault/vault.repository';

/**
 * Consumer-driven contract: the authorization service reads every ExecutionAccepted ever recorded,
 * and everything it writes is readable by the contracts' own parsers (its consumers read with those).
 */
const recorded = Object.entries(recordedHistories).map(([name, history]) => ({ name, history: history.map((event) => parseEvent(event)) }));
const actorsOf = [...new Set(recorded.map(({ history }) => (history[0]?.type === 'ExecutionAccepted' ? history[0].data.actor : 'none')))];

function actorsYaml(tools: string, sessionGrant: 'automatic' | 'human'): string {
  const actors = actorsOf.map((id, i) => `  - id: ${id}\n    api_keys_sha256: [${hashApiKey(`key-${i}`)}]\n    tools: ${tools}\n    session_grant: ${sessionGrant}`);
  return `actors:\n${actors.join('\n')}\n`;
}

type Expect = (approval: string) => string;
const policies: { name: string; yaml: string; lockVault: boolean; expected: Expect }[] = [
  { name: 'every actor allowed, sessions granted automatically', yaml: actorsYaml('"*"', 'automatic'), lockVault: false, expected: (a) => (a === 'per_use' ? 'awaiting_approval' : 'authorized') },
  { name: 'every actor allowed, sessions granted by a human', yaml: actorsYaml('"*"', 'human'), lockVault: false, expected: () => 'awaiting_approval' },
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

  it.each(policies)('decides every recorded ExecutionAccepted with $name, and writes only events the contracts parse', async ({ yaml, lockVault, expected }) => {
    const executions = new ExecutionRepository(store);
    const handler = await createHandler(store, executions, { directory: testDirectory(yaml) });
    if (lockVault) await new VaultRepository(store).change('LockVault', 'ops:alice', 'contract test', { causationId: 'test' });
    for (const { history } of recorded) {
      const accepted = history[0]!;
      if (accepted.type !== 'ExecutionAccepted') throw new Error('history without ExecutionAccepted');
      const streamId = executionStreamId(accepted.data.executionId);
      await store.append(streamId, [toStored(accepted)], { expectedVersion: 0 });
      const [stored] = await store.readStream(streamId);
      expect(await handler.handle(toWireEvent(stored!), delivered)).toMatchObject({ decided: true });
      expect((await executions.load(accepted.data.executionId)).state.status).toBe(expected(accepted.data.approval));
    }
    await expectEverythingParses(store);
  });

  it('treats every recorded history, delivered again, as a redelivery: nothing is appended', async () => {
    const executions = new ExecutionRepository(store);
    const handler = await createHandler(store, executions, { directory: testDirectory(actorsYaml('"*"', 'automatic')) });
    for (const { history } of recorded) {
      const streamId = executionStreamId(history[0]!.data.executionId);
      await store.append(streamId, history.map(toStored), { expectedVersion: 0 });
      const [first] = await store.readStream(streamId);
      expect(await handler.handle(toWireEvent(first!), delivered)).toMatchObject({ decided: false });
      expect(await store.readStream(streamId)).toHaveLength(history.length);
    }
  });
});

function toStored(event: { type: string; schemaVersion: number; data: unknown; metadata: { eventId: string } }) {
  return { eventId: event.metadata.eventId, type: event.type, schemaVersion: event.schemaVersion, data: event.data as JsonObject, metadata: event.metadata as unknown as JsonObject };
}

/** Every stored event, by the parser its stream's readers use. */
async function expectEverythingParses(store: PostgresEventStore): Promise<void> {
  const all = await store.readAll();
  const written = all.filter((event) => !(executionIdOfStream(event.streamId) !== null && event.type === 'ExecutionAccepted'));
  expect(written.length).toBeGreaterThan(0);
  for (const event of all) {
    const raw = envelopeOf(event);
    if (event.streamId === VAULT_STREAM_ID) expect(parseVaultEvent(raw).type).toBe(event.type);
    else if (isSessionStream(event.streamId)) expect(parseSessionEvent(raw).type).toBe(event.type);
    else if (executionIdOfStream(event.streamId) !== null) expect(parseEvent(raw).type).toBe(event.type);
    else throw new Error(`authorization wrote to an unexpected stream: ${event.streamId}`);
  }
}
