import { checkIntakeEnv } from '../intake.config';
import { boundedTraceContext, checkIdempotencyKey, checkJsonRpcId, checkProcessId, requestIdOrFresh } from './check-identifiers';

describe('identifier bounds: ids and headers a client sends back', () => {
  it('keeps a well-formed X-Request-Id and replaces anything else with a fresh UUID, never the raw text', () => {
    expect(requestIdOrFresh('req-7f3a:build/42')).toBe('req-7f3a:build/42');
    for (const bad of ['two words', 'x'.repeat(129), 'a\tb', '', 'ünïcode']) {
      const replaced = requestIdOrFresh(bad);
      expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
      expect(replaced).not.toBe(bad);
    }
    expect(requestIdOrFresh(null)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('Idempotency-Key: 1–255 visible ASCII, refused otherwise with the header as path', () => {
    expect(checkIdempotencyKey('order-42')).toEqual({ ok: true, value: 'order-42' });
    expect(checkIdempotencyKey(null)).toEqual({ ok: true, value: null });
    expect(checkIdempotencyKey('k'.repeat(256))).toMatchObject({
      ok: false,
      violations: [{ path: 'header Idempotency-Key', bound: '1-255 visible ASCII characters' }],
    });
    expect(checkIdempotencyKey('two words').ok).toBe(false);
  });

  it('process ids (Onceport-Agent-Process, Mcp-Session-Id): 1–128 visible ASCII before any lookup', () => {
    expect(checkProcessId('rap_abc', 'Onceport-Agent-Process').ok).toBe(true);
    expect(checkProcessId('p'.repeat(129), 'Mcp-Session-Id')).toMatchObject({ ok: false, violations: [{ path: 'header Mcp-Session-Id' }] });
  });

  it('JSON-RPC ids: safe integers and short strings without control characters', () => {
    expect([1, 0, -5, 'abc', 'ship 🚀'].map((id) => checkJsonRpcId(id, '$.id'))).toEqual([null, null, null, null, null]);
    for (const bad of [1.5, 2 ** 60, '', 'i'.repeat(129), 'a\nb', '\uD800', {}, [], true])
      expect(checkJsonRpcId(bad, '$.id')).toMatchObject({ path: '$.id' });
  });

  it('trace context: a W3C traceparent is kept, anything else dropped (and tracestate with it)', () => {
    const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(boundedTraceContext(parent, 'vendor=1')).toEqual({ traceparent: parent, tracestate: 'vendor=1' });
    expect(boundedTraceContext('garbage', 'vendor=1')).toEqual({ traceparent: null, tracestate: null });
    expect(boundedTraceContext(parent, 'v'.repeat(513))).toEqual({ traceparent: parent, tracestate: null });
  });

  it('ONCEPORT_MAX_ARGUMENT_BYTES must stay below ONCEPORT_MAX_BODY_BYTES; the error names both', () => {
    const env = { ONCEPORT_MAX_BODY_BYTES: 1024 * 1024, ONCEPORT_MAX_ARGUMENT_BYTES: 256 * 1024 } as Parameters<typeof checkIntakeEnv>[0];
    expect(() => checkIntakeEnv(env)).not.toThrow();
    expect(() => checkIntakeEnv({ ...env, ONCEPORT_MAX_ARGUMENT_BYTES: 1024 * 1024 })).toThrow(
      /ONCEPORT_MAX_ARGUMENT_BYTES.*ONCEPORT_MAX_BODY_BYTES/,
    );
  });
});
