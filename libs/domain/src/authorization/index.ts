export { type VaultState, NEVER_LOCKED, evolveVault, vaultState } from './vault-state';
export { type VaultCommand, decideVault } from './decide-vault';
export { type SessionGrant, effectiveAgentProcess, sessionGranted } from './session-grant';
export { vaultLockedReason } from './vault-locked-reason';
export { type GrantSession, sessionDecider, vaultDecider } from './authorization-deciders';
