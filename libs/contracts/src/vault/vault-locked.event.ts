import { z } from 'zod';
import { type Event } from '../events/event';
import { defineEvent } from '../events/event-definition';
import { IsoTimestamp } from '../primitives';
import { inSubjectSpace } from './subject-space';
import { VAULT_SUBJECT_PREFIX } from './vault-stream';

/** The operator's words, shown to agents and in the audit trail. */
export const VaultReason = z.string().max(1000).regex(/\S/, 'expected a reason that is not blank');

/** An operator locked the vault: from now on every new call is denied (DESIGN.md §6, first rung). */
export const VaultLockedData = z.object({
  /** The authenticated admin who locked it. */
  by: z.string().min(1),
  reason: VaultReason,
  lockedAt: IsoTimestamp,
});
export type VaultLockedData = z.infer<typeof VaultLockedData>;
export type VaultLocked = Event<'VaultLocked', VaultLockedData>;

export const VaultLockedEvent = inSubjectSpace(defineEvent('VaultLocked', 1, VaultLockedData), VAULT_SUBJECT_PREFIX);
