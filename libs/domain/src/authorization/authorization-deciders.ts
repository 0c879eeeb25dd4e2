import { type SessionEvent, type SessionGrantedData, type VaultEvent } from '@onceport/contracts';
import { type Decider } from '../decider';
import { type CommandMetadata } from '../execution/execution-command';
import { type VaultCommand, decideVault } from './decide-vault';
import { type SessionGrant } from './session-grant';
import { NEVER_LOCKED, type VaultState, evolveVault } from './vault-state';

export const vaultDecider: Decider<VaultCommand, VaultState, VaultEvent> = {
  decide: decideVault,
  evolve: evolveVault,
  initialState: () => NEVER_LOCKED,
};

/** Record a session grant the authorization ladder decided on. */
export interface GrantSession {
  readonly type: 'GrantSession';
  readonly data: SessionGrantedData;
  readonly metadata: CommandMetadata;
}

/** The first grant stands: a process already granted records nothing (see `sessionGranted`). */
export const sessionDecider: Decider<GrantSession, SessionGrant | null, SessionEvent> = {
  decide: (command, state) => (state ? [] : [{ type: 'SessionGranted', data: command.data }]),
  evolve: (state, event) => state ?? { ...event.data },
  initialState: () => null,
};
