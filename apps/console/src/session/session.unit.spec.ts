import type { IncomingMessage } from 'node:http';
import { SESSION_COOKIE, sessionCookie, sessionIdOf } from './session-cookie';
import { SessionStore } from './session-store';

describe('console sessions', () => {
  it('keeps the key server-side under a random id, and forgets it when idle or closed', () => {
    let now = 1_000;
    const store = new SessionStore(60_000, () => now);
    const session = store.open('adm_secret');
    expect(session.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(store.find(session.id)?.credential).toBe('adm_secret');
    now += 59_000;
    expect(store.find(session.id)).not.toBeNull(); // seen again: the idle clock restarts
    now += 60_001;
    expect(store.find(session.id)).toBeNull();
    const other = store.open('adm_other');
    store.close(other.id);
    expect(store.find(other.id)).toBeNull();
    expect(store.find(undefined)).toBeNull();
  });

  it('caps how many sessions one process holds (the longest idle goes first)', () => {
    let now = 0;
    const store = new SessionStore(3_600_000, () => now);
    const first = store.open('k');
    for (let i = 0; i < 1_000; i += 1) {
      now += 1;
      store.open(`k${i}`);
    }
    expect(store.size).toBe(1_000);
    expect(store.find(first.id)).toBeNull();
  });

  it('reads only a well-formed session cookie, and sets it HttpOnly and SameSite=Strict', () => {
    const id = 'a'.repeat(43);
    const req = (cookie?: string) => ({ headers: cookie === undefined ? {} : { cookie } }) as IncomingMessage;
    expect(sessionIdOf(req(`x=1; ${SESSION_COOKIE}=${id}`))).toBe(id);
    expect(sessionIdOf(req(`${SESSION_COOKIE}=short`))).toBeUndefined();
    expect(sessionIdOf(req(`${SESSION_COOKIE}=${id}; `.padEnd(9_000, ' ')))).toBeUndefined();
    expect(sessionIdOf(req())).toBeUndefined();
    expect(sessionCookie(id, false)).toBe(`${SESSION_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/`);
    expect(sessionCookie(id, true)).toMatch(/; Secure$/);
  });
});
