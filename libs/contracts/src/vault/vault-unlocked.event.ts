import { z } from 'zod';
import { type Event } from '../events/event';
import { defineEvent } from '../events/event-definition';
import { IsoTimestamp } from '../primitives';
import { inSubjectSpace } from './subject-space';
import { VaultReason } from './vault-locked.event';
import { VAULT_SUBJECT_PREFIX } from './vault-stream';

/** An operator unlocked the vault: calls are decided by the rest of the ladder again. */
export const VaultUnlockedData = z.object({
  by: z.string().min(1),
  reason: VaultReason,
  unlockedAt: IsoTimestamp,
});
export type VaultUnlockedData = z.infer<typeof VaultUnlockedData>;
export type VaultUnlocked = Event<'VaultUnlocked', VaultUnlockedData>;

export const VaultUnlockedEvent = inSubjectSpace(defineEvent('VaultUnlocked', 1, VaultUnlockedData), VAULT_SUBJECT_PREFIX);
