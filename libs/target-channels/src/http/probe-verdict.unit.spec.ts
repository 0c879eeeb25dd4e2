import type { HttpProbe } from '@onceport/domain';
import type { HttpOutcome } from './http-outcome';
import { jsonEquals, readJsonPath } from './json-path';
import { judgeProbe } from './probe-verdict';

const probe: HttpProbe = {
  kind: 'http',
  method: 'GET',
  path: '/v1/deployments/by-key/{execution_id}',
  applied: { status: [200], match: { jsonPath: '$.items[0].state', equals: { phase: 'done' } } },
  notApplied: { status: [404, 410] },
};

const answer = (status: number, body: unknown, truncated = false): HttpOutcome => ({
  kind: 'observed',
  status,
  headers: {},
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  truncated,
  contentType: 'application/json',
  digest: 'sha256:00',
  credentialRedacted: false,
});

describe('judgeProbe', () => {
  it('needs both the status and the declared value for "applied"', () => {
    expect(judgeProbe(probe, answer(200, { items: [{ state: { phase: 'done' } }] })).verdict).toBe('applied');
    expect(judgeProbe(probe, answer(200, { items: [{ state: { phase: 'running' } }] })).verdict).toBe('cant_tell');
    expect(judgeProbe(probe, answer(200, { items: [] })).verdict).toBe('cant_tell');
  });

  it('reads not_applied statuses as not applied', () => {
    expect(judgeProbe(probe, answer(410, 'gone')).verdict).toBe('not_applied');
  });

  it("can't tell from unlisted statuses, non-JSON bodies, cut bodies or no answer", () => {
    expect(judgeProbe(probe, answer(503, {})).verdict).toBe('cant_tell');
    expect(judgeProbe(probe, answer(200, '<html>')).verdict).toBe('cant_tell');
    expect(judgeProbe(probe, answer(200, { items: [{ state: { phase: 'done' } }] }, true)).verdict).toBe('cant_tell');
    expect(judgeProbe(probe, { kind: 'unknown', code: 'timeout', reason: 'slow', stage: 'request_written' })).toMatchObject({
      verdict: 'cant_tell',
      status: null,
    });
  });
});

describe('readJsonPath and jsonEquals', () => {
  const doc = { a: { b: [1, { c: 'x' }] } };

  it('follows keys and indexes', () => {
    expect(readJsonPath(doc, '$')).toEqual(doc);
    expect(readJsonPath(doc, '$.a.b[1].c')).toBe('x');
    expect(readJsonPath(doc, '$.a.missing')).toBeUndefined();
    expect(readJsonPath(doc, '$.a.b[9]')).toBeUndefined();
    expect(readJsonPath(doc, '$..a')).toBeUndefined();
    expect(readJsonPath({ toString: 1 }, '$.constructor')).toBeUndefined();
  });

  it('compares structurally, ignoring key order', () => {
    expect(jsonEquals({ x: 1, y: [true, null] }, { y: [true, null], x: 1 })).toBe(true);
    expect(jsonEquals({ x: 1 }, { x: 1, y: 2 })).toBe(false);
    expect(jsonEquals([1], { 0: 1 })).toBe(false);
    expect(jsonEquals('1', 1)).toBe(false);
  });
});
