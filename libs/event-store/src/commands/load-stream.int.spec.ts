import { randomUUID } from 'node:crypto';
import { VAULT_STREAM_ID, VaultLockedEvent, createEvent } from '@onceport/contracts';
import { NEVER_LOCKED } from '@onceport/domain';
import { type TestDatabase, createTestDatabase } from '../testing';
import type { JsonObject } from '../json';
import { PostgresEventStore } from '../postgres-event-store';
import { loadStream } from './load-stream';
import { vaultStream } from './streams/vault-stream';

describe('loadStream of the vault (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;

  beforeEach(async () => {
    db = await createTestDatabase();
    store = new PostgresEventStore(db.pool);
  });
  afterEach(() => db.drop());

  it('reads a vault nobody locked as unlocked at version 0, and a lock as soon as it is committed', async () => {
    expect(await loadStream(store, vaultStream())).toEqual({ state: NEVER_LOCKED, version: 0, events: [] });

    const metadata = { eventId: randomUUID(), correlationId: VAULT_STREAM_ID, causationId: 'test', occurredAt: '2026-03-02T10:00:00.000Z' };
    const locked = createEvent(VaultLockedEvent, { by: 'ops:alice', reason: 'deploy key leaked', lockedAt: metadata.occurredAt }, metadata);
    await store.append(
      VAULT_STREAM_ID,
      [
        {
          eventId: metadata.eventId,
          type: locked.type,
          schemaVersion: locked.schemaVersion,
          data: locked.data as unknown as JsonObject,
          metadata: metadata as unknown as JsonObject,
        },
      ],
      { expectedVersion: 0 },
    );

    expect(await loadStream(store, vaultStream())).toMatchObject({
      state: { status: 'locked', by: 'ops:alice', reason: 'deploy key leaked', since: '2026-03-02T10:00:00.000Z' },
      version: 1,
    });
  });
});
