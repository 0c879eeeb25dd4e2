import { type VaultEvent } from '@onceport/contracts';

/**
 * The vault as its stream says it is now. `since`/`by`/`reason` describe the last change; a vault
 * nobody ever locked is unlocked with nulls.
 */
export type VaultState =
  | { readonly status: 'unlocked'; readonly by: string | null; readonly reason: string | null; readonly since: string | null }
  | { readonly status: 'locked'; readonly by: string; readonly reason: string; readonly since: string };

export const NEVER_LOCKED: VaultState = { status: 'unlocked', by: null, reason: null, since: null };

export function evolveVault(_state: VaultState, event: VaultEvent): VaultState {
  switch (event.type) {
    case 'VaultLocked':
      return { status: 'locked', by: event.data.by, reason: event.data.reason, since: event.data.lockedAt };
    case 'VaultUnlocked':
      return { status: 'unlocked', by: event.data.by, reason: event.data.reason, since: event.data.unlockedAt };
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
}

/**
 * Folds the `vault` stream: the last event wins.
 *
 * @example if (vaultState(events).status === 'locked') deny('vault_locked')
 */
export function vaultState(events: readonly VaultEvent[]): VaultState {
  return events.reduce(evolveVault, NEVER_LOCKED);
}
