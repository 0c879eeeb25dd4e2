import { BehaviorBook } from './behavior';
import { matchRoute } from './routes';
import { TestTargetError } from './test-target-error';

describe('BehaviorBook', () => {
  it('prefers the route entry, falls back to the global one for effect routes only', () => {
    const book = new BehaviorBook();
    book.set({ fail_status: 503 });
    book.set({ route: 'emails', delay_ms: 10 });

    expect(book.take('emails', true).mode).toEqual({ kind: 'delay', ms: 10 });
    expect(book.take('payments', true).mode).toEqual({ kind: 'fail_status', status: 503 });
    expect(book.take('payments.status', false).mode).toEqual({ kind: 'normal' });
  });

  it('counts down `times` and then returns to what was there before', () => {
    const book = new BehaviorBook();
    book.set({ honour_idempotency: false });
    book.set({ route: 'deployments', accept_then_drop: true, times: 2 });

    expect(book.take('deployments', true).mode.kind).toBe('accept_then_drop');
    expect(book.take('deployments', true).mode.kind).toBe('accept_then_drop');
    expect(book.take('deployments', true)).toEqual({ mode: { kind: 'normal' }, honourIdempotency: false });
  });

  it.each([
    [{ fail_status: 500, delay_ms: 1 }, 'one mode at a time'],
    [{ times: 1 }, 'times needs a mode'],
    [{ fail_status: 200 }, 'fail_status'],
    [{ route: 'nope' }, 'expected a route name'],
    [{ colour: 'red' }, 'colour'],
  ])('refuses %j with a typed error', (spec, words) => {
    const book = new BehaviorBook();
    let caught: unknown;
    try {
      book.set(spec);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TestTargetError);
    expect(caught).toMatchObject({ code: 'invalid_behavior', message: expect.stringContaining(words) });
  });
});

describe('matchRoute', () => {
  it('decodes parameters and tells a wrong method from an unknown path', () => {
    expect(matchRoute('POST', '/v1/projects/a%20b/deployments')).toMatchObject({
      route: { name: 'deployments' },
      params: { project: 'a b' },
    });
    expect(matchRoute('HEAD', '/v1/deployments/by-key/k')).toMatchObject({ route: { name: 'deployments.status' } });
    expect(matchRoute('GET', '/v1/charges')).toEqual({ allowed: ['POST'] });
    expect(matchRoute('GET', '/v1/projects//deployments')).toEqual({ allowed: [] });
  });
});
