import { type SessionEvent, type VaultEvent } from '@onceport/contracts';
import { decideVault } from './decide-vault';
import { effectiveAgentProcess, sessionGranted } from './session-grant';
import { vaultLockedReason } from './vault-locked-reason';
import { NEVER_LOCKED, vaultState } from './vault-state';

const T = (minutes: number): Date => new Date(Date.parse('2026-03-02T10:00:00.000Z') + minutes * 60_000);
const locked = (minutes: number, by = 'ops:alice'): VaultEvent => ({
  type: 'VaultLocked',
  data: { by, reason: 'leak', lockedAt: T(minutes).toISOString() },
});
const unlocked = (minutes: number, by = 'ops:bob'): VaultEvent => ({
  type: 'VaultUnlocked',
  data: { by, reason: 'rotated', unlockedAt: T(minutes).toISOString() },
});

describe('vaultState', () => {
  it('given no events, the vault was never locked', () => {
    expect(vaultState([])).toEqual(NEVER_LOCKED);
  });

  it('given lock then unlock then lock, the last event wins', () => {
    expect(vaultState([locked(0)]).status).toBe('locked');
    expect(vaultState([locked(0), unlocked(1)])).toEqual({
      status: 'unlocked',
      by: 'ops:bob',
      reason: 'rotated',
      since: T(1).toISOString(),
    });
    expect(vaultState([locked(0), unlocked(1), locked(2, 'ops:carol')])).toEqual({
      status: 'locked',
      by: 'ops:carol',
      reason: 'leak',
      since: T(2).toISOString(),
    });
  });
});

describe('vaultLockedReason', () => {
  it("names the operator's reason and who locked the vault", () => {
    const state = vaultState([locked(0, 'ops:carol')]);
    if (state.status !== 'locked') throw new Error('expected a locked vault');
    expect(vaultLockedReason(state)).toBe('The vault is locked: leak (by ops:carol). Every call is denied until an operator unlocks it.');
  });
});

describe('decideVault', () => {
  const lock = { type: 'LockVault' as const, data: { by: 'ops:alice', reason: 'leak' }, metadata: { now: T(5) } };
  const unlock = { type: 'UnlockVault' as const, data: { by: 'ops:bob', reason: 'rotated' }, metadata: { now: T(6) } };

  it('given an unlocked vault, when locked, then VaultLocked at now', () => {
    expect(decideVault(lock, NEVER_LOCKED)).toEqual([
      { type: 'VaultLocked', data: { by: 'ops:alice', reason: 'leak', lockedAt: T(5).toISOString() } },
    ]);
  });

  it('given a locked vault, when locked again, then nothing (idempotent)', () => {
    expect(decideVault(lock, vaultState([locked(0)]))).toEqual([]);
  });

  it('given a locked vault, when unlocked, then VaultUnlocked; unlocking again records nothing', () => {
    expect(decideVault(unlock, vaultState([locked(0)]))).toEqual([
      { type: 'VaultUnlocked', data: { by: 'ops:bob', reason: 'rotated', unlockedAt: T(6).toISOString() } },
    ]);
    expect(decideVault(unlock, NEVER_LOCKED)).toEqual([]);
  });
});

describe('sessionGranted', () => {
  const grant: SessionEvent = {
    type: 'SessionGranted',
    data: {
      actor: 'agent:a',
      agentProcess: 'p1',
      basis: 'automatic',
      grantedBy: 'svc:authorization',
      policyVersion: 'v1',
      grantedAt: T(0).toISOString(),
    },
  };

  it('given no events, there is no grant; given one, it is the grant', () => {
    expect(sessionGranted([])).toBeNull();
    expect(sessionGranted([grant])).toEqual(grant.data);
  });

  it('counts a call without an agent process against the actor itself', () => {
    expect(effectiveAgentProcess('agent:a', null)).toBe('agent:a');
    expect(effectiveAgentProcess('agent:a', 'p1')).toBe('p1');
  });
});
