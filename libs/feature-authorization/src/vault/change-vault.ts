import { type VaultCommand, type VaultState } from '@onceport/domain';
import { type CommandHandler, type EventCause, vaultStream } from '@onceport/event-store';

export interface VaultChange {
  readonly state: VaultState;
  /** The `vault` stream's version after the change. */
  readonly version: number;
  /** False when the vault already was in the asked-for state (nothing appended). */
  readonly changed: boolean;
}

/** Locks or unlocks the vault as admin `by`; two admins at once both get a consistent answer. */
export async function changeVault(
  commands: CommandHandler,
  type: VaultCommand['type'],
  by: string,
  reason: string,
  cause: Omit<EventCause, 'actor'>,
): Promise<VaultChange> {
  const handled = await commands.handle(vaultStream(), (_vault, now) => ({ type, data: { by, reason }, metadata: { now } }), {
    ...cause,
    actor: by,
  });
  return { state: handled.state, version: handled.version, changed: handled.appended.length > 0 };
}
