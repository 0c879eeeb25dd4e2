import { type VaultEvent } from '@onceport/contracts';
import { type CommandMetadata } from '../execution/execution-command';
import { type VaultState } from './vault-state';

export interface VaultCommand {
  readonly type: 'LockVault' | 'UnlockVault';
  /** The authenticated admin. */
  readonly data: { readonly by: string; readonly reason: string };
  readonly metadata: CommandMetadata;
}

/**
 * Locking a locked vault (or unlocking an unlocked one) records nothing: the operator's intent
 * already holds, and a second event would make "who locked it" ambiguous in the audit trail.
 */
export function decideVault(command: VaultCommand, state: VaultState): VaultEvent[] {
  const { by, reason } = command.data;
  const at = command.metadata.now.toISOString();
  if (command.type === 'LockVault') {
    return state.status === 'locked' ? [] : [{ type: 'VaultLocked', data: { by, reason, lockedAt: at } }];
  }
  return state.status === 'unlocked' ? [] : [{ type: 'VaultUnlocked', data: { by, reason, unlockedAt: at } }];
}
