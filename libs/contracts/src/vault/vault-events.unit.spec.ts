import { createEvent } from '../events/create-event';
import { EventParseError } from '../events/event-parse-error';
import { metadata } from '../events/testing/samples';
import { parseVaultEvent, safeParseVaultEvent } from './vault-event';
import { VaultLockedEvent } from './vault-locked.event';
import { VaultUnlockedEvent } from './vault-unlocked.event';

const locked = {
  type: 'VaultLocked',
  schemaVersion: 1,
  data: { by: 'ops:alice', reason: 'Leaked deploy key: stop everything.', lockedAt: '2026-03-02T10:00:00.000Z' },
  metadata: { ...metadata, correlationId: 'vault', causationId: 'http:req-1', actor: 'ops:alice' },
};

describe('vault events', () => {
  it('parse at their current version', () => {
    expect(parseVaultEvent(JSON.parse(JSON.stringify(locked)))).toEqual(locked);
    const unlocked = {
      ...locked,
      type: 'VaultUnlocked',
      data: { by: 'ops:bob', reason: 'Key rotated.', unlockedAt: '2026-03-02T11:00:00.000Z' },
    };
    expect(parseVaultEvent(unlocked).type).toBe('VaultUnlocked');
  });

  it('refuse a blank reason and a missing admin, naming the path', () => {
    const result = safeParseVaultEvent({ ...locked, data: { ...locked.data, by: '', reason: '   ' } });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error.issues.map((issue) => issue.path).sort()).toEqual(['data.by', 'data.reason']);
  });

  it('are not execution events, and execution events are not vault events', () => {
    expect(() => parseVaultEvent({ ...locked, type: 'ExecutionDenied' })).toThrow(EventParseError);
  });

  it('live under onceport.vault, outside the relayed execution subjects', () => {
    expect(VaultLockedEvent.subject).toBe('onceport.vault.vault-locked.v1');
    expect(VaultUnlockedEvent.subjectWildcard).toBe('onceport.vault.vault-unlocked.*');
  });

  it('can be created only with valid data', () => {
    expect(createEvent(VaultLockedEvent, locked.data, locked.metadata)).toEqual(locked);
    expect(() => createEvent(VaultLockedEvent, { ...locked.data, lockedAt: 'yesterday' }, locked.metadata)).toThrow(
      /VaultLocked v1: .*data\.lockedAt/,
    );
  });
});
