import { intentStreamId } from './intent-stream';

const FINGERPRINT = `hmac-sha256:k1:${'ab'.repeat(32)}`;

describe('intentStreamId: where an intent claims its executions', () => {
  it('is stable across releases: an existing intent stream must still be found after an upgrade', () => {
    expect(intentStreamId(FINGERPRINT, 'agent:a', 'default:agent:a')).toBe(
      'intent-657c11d92b7f93fb3df93fbc4018d586ab813a05bf0229a57cda76ca8a497875',
    );
  });

  it('is the same for the same intent, every time', () => {
    const ids = new Set(Array.from({ length: 5 }, () => intentStreamId(FINGERPRINT, 'agent:a', 'run:42')));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^intent-[0-9a-f]{64}$/);
  });

  it('differs by fingerprint, actor and intent scope', () => {
    const base = intentStreamId(FINGERPRINT, 'agent:a', 'run:42');
    expect(intentStreamId(`hmac-sha256:k1:${'cd'.repeat(32)}`, 'agent:a', 'run:42')).not.toBe(base);
    expect(intentStreamId(`hmac-sha256:k2:${'ab'.repeat(32)}`, 'agent:a', 'run:42')).not.toBe(base);
    expect(intentStreamId(FINGERPRINT, 'agent:b', 'run:42')).not.toBe(base);
    expect(intentStreamId(FINGERPRINT, 'agent:a', 'run:43')).not.toBe(base);
  });

  it('never carries the fingerprint, actor or scope in the clear', () => {
    const id = intentStreamId(FINGERPRINT, 'agent:a', 'run:42');
    expect(id).not.toContain('agent');
    expect(id).not.toContain('abab');
  });
});
