import { VAULT_STREAM_ID, parseVaultEvent } from '@onceport/contracts';
import { type VaultState, vaultState } from '@onceport/domain';
import { type EventStore } from '@onceport/event-store';

export interface LoadedVault {
  readonly state: VaultState;
  /** The `vault` stream's version the state was folded at: the expected version of the next change. */
  readonly version: number;
}

/**
 * The `vault` stream folded, read fresh from the store every time (no cache: a lock must be seen
 * by the very next decision). Shared by the authorization service, which decides on it and writes
 * it, and the dispatcher, which checks it right before every send.
 *
 * @example if ((await loadVault(store)).state.status === 'locked') deny();
 */
export async function loadVault(store: EventStore): Promise<LoadedVault> {
  const stored = await store.readStream(VAULT_STREAM_ID);
  const events = stored.map((event) => parseVaultEvent({ type: event.type, schemaVersion: event.schemaVersion, data: event.data, metadata: { ...event.metadata, eventId: event.eventId } }));
  return { state: vaultState(events), version: stored.length };
}
