import { SessionStore } from '../session/session-store';
import { SIGN_IN_TTL_MS, SignInTransactions } from './sign-in-transactions';
import { TokenRefresher } from './token-refresher';

describe('console OAuth sign-in: transactions and token sessions', () => {
  it('keeps a sign-in under way by an unguessable id, for ten minutes at most; a failure is told once', () => {
    let now = 0;
    const transactions = new SignInTransactions(() => now);
    const started = transactions.start('verifier-1');
    expect(started.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(started.state).not.toBe(started.nonce);
    expect(transactions.find(started.id)).toBe(started);
    expect(transactions.find('not-an-id')).toBeNull();
    expect(transactions.find(undefined)).toBeNull();

    transactions.fail(started, 'the issuer refused the sign-in: access_denied');
    expect(transactions.takeError(started.id)).toBe('the issuer refused the sign-in: access_denied');
    expect(transactions.takeError(started.id)).toBeNull();

    const late = transactions.start('verifier-2');
    now += SIGN_IN_TTL_MS + 1;
    expect(transactions.find(late.id)).toBeNull();
  });

  it('ends a token session when its access token expires, however recently it was used', () => {
    let now = 1_000;
    const store = new SessionStore(8 * 3_600_000, () => now);
    const session = store.open({ credential: 'eyJ.token.sig', via: 'oauth', expiresAt: 61_000 });
    now = 60_999;
    expect(store.find(session.id)).toMatchObject({ via: 'oauth', credential: 'eyJ.token.sig' });
    now = 61_000;
    expect(store.find(session.id)).toBeNull();
    // An admin key's session has no expiry of its own, only the idle limit.
    const keyed = store.open('adm_key');
    now += 3_600_000;
    expect(store.find(keyed.id)).toMatchObject({ via: 'admin_key', expiresAt: null });
  });

  it('refreshes a token before it expires when the issuer gave a refresh token; without one, nothing is scheduled', async () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const store = new SessionStore(8 * 3_600_000);
      const session = store.open({ credential: 'old', via: 'oauth', expiresAt: 300_000 });
      const asked: string[] = [];
      const refresher = new TokenRefresher(
        store,
        async (refreshToken) => {
          asked.push(refreshToken);
          return { accessToken: 'new', expiresAt: Date.now() + 300_000, refreshToken: 'r2' };
        },
        () => undefined,
      );
      refresher.schedule(session.id, { accessToken: 'old', expiresAt: 300_000, refreshToken: 'r1' });
      await jest.advanceTimersByTimeAsync(239_999);
      expect(asked).toEqual([]);
      await jest.advanceTimersByTimeAsync(1);
      expect(asked).toEqual(['r1']);
      expect(store.peek(session.id)).toMatchObject({ credential: 'new', expiresAt: 540_000 });
      refresher.stop();

      const other = store.open({ credential: 't', via: 'oauth', expiresAt: 300_000 });
      refresher.schedule(other.id, { accessToken: 't', expiresAt: 300_000, refreshToken: null });
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});
