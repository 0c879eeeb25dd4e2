import { setTimeout as sleep } from 'node:timers/promises';
import { VAULT_STREAM_ID, type VaultEvent, VaultLockedEvent, VaultUnlockedEvent } from '@onceport/contracts';
import { type VaultCommand, decideVault, evolveVault } from '@onceport/domain';
import { type EventStore, type NewEvent, WrongExpectedVersionError } from '@onceport/event-store';
import { type LoadedVault, loadVault } from '@onceport/runtime';
import { type EventCause, newEvent } from '../shared/new-event';

export type { LoadedVault };

export interface VaultChange extends LoadedVault {
  /** False when the vault already was in the asked-for state (nothing appended). */
  readonly changed: boolean;
}

const CONFLICT_RETRIES = 20;

/** The `vault` stream: read on every decision, written by the admin API. */
export class VaultRepository {
  constructor(
    private readonly store: EventStore,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The same fold the dispatcher checks before every send (`loadVault` in the runtime). */
  load(): Promise<LoadedVault> {
    return loadVault(this.store);
  }

  /** Load, decide, append with the loaded version; two admins at once both get a consistent answer. */
  async change(type: VaultCommand['type'], by: string, reason: string, cause: Omit<EventCause, 'correlationId' | 'actor'>): Promise<VaultChange> {
    for (let attempt = 1; ; attempt++) {
      const loaded = await this.load();
      const now = this.clock();
      const decided = decideVault({ type, data: { by, reason }, metadata: { now } }, loaded.state);
      if (decided.length === 0) return { ...loaded, changed: false };
      const events = decided.map((event) => toNewEvent(event, { ...cause, correlationId: VAULT_STREAM_ID, actor: by }, now));
      try {
        await this.store.append(VAULT_STREAM_ID, events, { expectedVersion: loaded.version });
      } catch (error) {
        if (error instanceof WrongExpectedVersionError && attempt < CONFLICT_RETRIES) {
          await sleep(Math.random() * 20);
          continue;
        }
        throw error;
      }
      return { state: decided.reduce(evolveVault, loaded.state), version: loaded.version + events.length, changed: true };
    }
  }
}

function toNewEvent(event: VaultEvent, cause: EventCause, now: Date): NewEvent {
  return event.type === 'VaultLocked' ? newEvent(VaultLockedEvent, event.data, cause, now) : newEvent(VaultUnlockedEvent, event.data, cause, now);
}
