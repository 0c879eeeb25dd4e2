import { type VaultState } from './vault-state';

/**
 * The denial reason an agent is shown for a call stopped by a locked vault: the operator's own
 * words and who locked it, so the agent (and the audit trail) can tell an incident from a mistake.
 * The authorization service and the dispatcher both use it, so the two denials read the same.
 *
 * @example vaultLockedReason({ status: 'locked', by: 'ops:alice', reason: 'deploy key leaked', since }) // 'The vault is locked: deploy key leaked (by ops:alice). …'
 */
export function vaultLockedReason(vault: Extract<VaultState, { status: 'locked' }>): string {
  return `The vault is locked: ${vault.reason} (by ${vault.by}). Every call is denied until an operator unlocks it.`;
}
