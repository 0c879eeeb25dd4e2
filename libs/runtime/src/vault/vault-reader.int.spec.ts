import { randomUUID } from 'node:crypto';
import { VAULT_STREAM_ID, VaultLockedEvent, createEvent } from '@onceport/contracts';
import { NEVER_LOCKED } from '@onceport/domain';
import { type JsonObject, PostgresEventStore } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { allMigrations } from '../database';
import { loadVault } from './vault-reader';

describe('loadVault (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;

  beforeEach(async () => {
    db = await createTestDatabase(allMigrations.filter((m) => !m.id.startsWith('00')));
    store = new PostgresEventStore(db.pool);
  });
  afterEach(() => db.drop());

  it('reads a vault nobody locked as unlocked at version 0, and a lock as soon as it is committed', async () => {
    expect(await loadVault(store)).toEqual({ state: NEVER_LOCKED, version: 0 });

    const metadata = { eventId: randomUUID(), correlationId: VAULT_STREAM_ID, causationId: 'test', occurredAt: '2026-03-02T10:00:00.000Z' };
    const locked = createEvent(VaultLockedEvent, { by: 'ops:alice', reason: 'deploy key leaked', lockedAt: metadata.occurredAt }, metadata);
    await store.append(VAULT_STREAM_ID, [{ eventId: metadata.eventId, type: locked.type, schemaVersion: locked.schemaVersion, data: locked.data as unknown as JsonObject, metadata: metadata as unknown as JsonObject }], { expectedVersion: 0 });

    expect(await loadVault(store)).toEqual({ state: { status: 'locked', by: 'ops:alice', reason: 'deploy key leaked', since: '2026-03-02T10:00:00.000Z' }, version: 1 });
  });
});
