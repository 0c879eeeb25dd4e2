import { metadata } from '../events/testing/samples';
import { parseSessionEvent, safeParseSessionEvent } from './session-event';
import { SessionGrantedEvent } from './session-granted.event';
import { isSessionStream, sessionStreamId } from './session-stream';

const granted = {
  type: 'SessionGranted',
  schemaVersion: 1,
  data: {
    actor: 'agent:deploy-bot',
    agentProcess: 'mcp-sess-91bd',
    basis: 'automatic',
    grantedBy: 'svc:authorization',
    policyVersion: '3f9a1c0b7d2e',
    grantedAt: '2026-03-02T10:00:00.000Z',
  },
  metadata,
};

describe('sessionStreamId', () => {
  it('is stable, hex and distinct per (actor, process)', () => {
    const id = sessionStreamId('agent:deploy-bot', 'mcp-sess-91bd');
    expect(id).toBe(sessionStreamId('agent:deploy-bot', 'mcp-sess-91bd'));
    expect(isSessionStream(id)).toBe(true);
    expect(id).not.toBe(sessionStreamId('agent:deploy-bot', 'mcp-sess-91be'));
    expect(id).not.toBe(sessionStreamId('agent:other-bot', 'mcp-sess-91bd'));
  });

  it('refuses parts that could blur the separator', () => {
    expect(() => sessionStreamId('a\nb', 'c')).toThrow(RangeError);
  });

  it('is not an execution stream id', () => {
    expect(sessionStreamId('a', 'b')).toMatch(/^session-[0-9a-f]{64}$/);
  });
});

describe('SessionGranted', () => {
  it('parses at its current version', () => {
    expect(parseSessionEvent(JSON.parse(JSON.stringify(granted)))).toEqual(granted);
  });

  it('refuses an unknown basis', () => {
    const result = safeParseSessionEvent({ ...granted, data: { ...granted.data, basis: 'maybe' } });
    expect(result.success ? [] : result.error.issues.map((issue) => issue.path)).toEqual(['data.basis']);
  });

  it('lives under onceport.session', () => {
    expect(SessionGrantedEvent.subject).toBe('onceport.session.session-granted.v1');
  });
});
