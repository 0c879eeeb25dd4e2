import { type EventEnvelope } from '../events/event';
import { type EventRegistry, type SafeParseEventResult, createEventRegistry } from '../events/event-registry';
import { type VaultLocked, VaultLockedEvent } from './vault-locked.event';
import { type VaultUnlocked, VaultUnlockedEvent } from './vault-unlocked.event';

/** Every event of the `vault` stream. */
export type VaultEvent = VaultLocked | VaultUnlocked;
export type VaultEventEnvelope = EventEnvelope<VaultEvent>;

export const vaultEventDefinitions = {
  VaultLocked: VaultLockedEvent,
  VaultUnlocked: VaultUnlockedEvent,
} as const satisfies { [Type in VaultEvent['type']]: { readonly type: Type } };

export const vaultEventRegistry: EventRegistry<VaultEventEnvelope> = createEventRegistry(
  Object.values(vaultEventDefinitions).map((current) => ({ current, past: [] })),
);

/**
 * Validates a stored vault event and upcasts it to the current schema version; the vault's twin of
 * `parseEvent`. Throws `EventParseError`.
 *
 * @example const state = vaultState((await store.readStream(VAULT_STREAM_ID)).map(parseVaultEvent));
 */
export function parseVaultEvent(raw: unknown): VaultEventEnvelope {
  return vaultEventRegistry.parse(raw);
}

export function safeParseVaultEvent(raw: unknown): SafeParseEventResult<VaultEventEnvelope> {
  return vaultEventRegistry.safeParse(raw);
}
