import { VAULT_STREAM_ID, type VaultEvent, VaultLockedEvent, VaultUnlockedEvent, createEvent, parseVaultEvent } from '@onceport/contracts';
import { type VaultCommand, type VaultState, vaultDecider } from '@onceport/domain';
import type { Stream, StreamKind } from '../stream-kind';
import { storedEnvelope } from './stored-envelope';

const vaultKind: StreamKind<VaultCommand, VaultState, VaultEvent> = {
  decider: vaultDecider,
  read: (stored) => parseVaultEvent(storedEnvelope(stored)),
  write: (event, metadata) =>
    event.type === 'VaultLocked'
      ? createEvent(VaultLockedEvent, event.data, metadata)
      : createEvent(VaultUnlockedEvent, event.data, metadata),
  // Read whole every time, as before: short, and a lock must be seen by the very next decision.
  cached: false,
};

export type VaultStream = Stream<VaultCommand, VaultState, VaultEvent>;

/**
 * The one `vault` stream: the authorization service decides on it and writes it, the dispatcher
 * checks it right before every send.
 *
 * @example if ((await commands.load(vaultStream())).state.status === 'locked') deny();
 */
export function vaultStream(): VaultStream {
  return { id: VAULT_STREAM_ID, correlationId: VAULT_STREAM_ID, kind: vaultKind };
}
