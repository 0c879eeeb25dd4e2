import { z } from 'zod';
import { hostOriginEnvShape } from './host-origin-env';
import { checkHostOrigin, hostOriginPolicyOf } from './host-origin-policy';

describe('Host and Origin allow-lists of /mcp', () => {
  const loopback = hostOriginPolicyOf({ bindHost: '127.0.0.1' });

  it('bound to loopback: loopback names on any port, loopback origins, and requests without Origin pass', () => {
    for (const host of ['localhost', 'localhost:3001', '127.0.0.1:9', '[::1]:3001', 'LOCALHOST'])
      expect(checkHostOrigin(loopback, { host })).toBeNull();
    expect(checkHostOrigin(loopback, { host: 'localhost:3001', origin: 'http://127.0.0.1:5173' })).toBeNull();
    expect(checkHostOrigin(loopback, { host: 'localhost', origin: 'https://[::1]' })).toBeNull();
  });

  it('bound to loopback: another name, a missing Host, a foreign or opaque Origin are 403', () => {
    for (const headers of [
      { host: 'evil.example' },
      { host: 'localhost.evil.example' },
      {},
      { host: 'localhost@evil.example' },
      { host: 'localhost', origin: 'http://evil.example' },
      { host: 'localhost', origin: 'null' },
    ]) {
      expect(checkHostOrigin(loopback, headers)?.status).toBe(403);
    }
  });

  it('bound to every address without lists: any Host, but no browser Origin', () => {
    const open = hostOriginPolicyOf({ bindHost: '0.0.0.0' });
    expect(checkHostOrigin(open, { host: 'intake.onceport.svc' })).toBeNull();
    expect(checkHostOrigin(open, { host: 'intake.onceport.svc', origin: 'https://intake.onceport.svc' })?.status).toBe(403);
  });

  it('configured lists: a name alone allows any port, name:port that port only; origins match exactly', () => {
    const env = z
      .object(hostOriginEnvShape)
      .parse({ ONCEPORT_ALLOWED_HOSTS: 'Onceport.internal, localhost:3001', ONCEPORT_ALLOWED_ORIGINS: 'https://agents.example.com:443' });
    const policy = hostOriginPolicyOf({
      bindHost: '0.0.0.0',
      allowedHosts: env.ONCEPORT_ALLOWED_HOSTS,
      allowedOrigins: env.ONCEPORT_ALLOWED_ORIGINS,
    });
    expect(checkHostOrigin(policy, { host: 'onceport.internal:8443' })).toBeNull();
    expect(checkHostOrigin(policy, { host: 'localhost:3001', origin: 'https://agents.example.com' })).toBeNull();
    expect(checkHostOrigin(policy, { host: 'localhost:3002' })?.status).toBe(403);
    expect(checkHostOrigin(policy, { host: 'onceport.internal', origin: 'http://agents.example.com' })?.status).toBe(403);
  });

  it('a malformed entry is refused at start, naming it', () => {
    expect(() => z.object(hostOriginEnvShape).parse({ ONCEPORT_ALLOWED_ORIGINS: 'agents.example.com/path' })).toThrow(
      /agents\.example\.com\/path.{1,3} is not an origin/,
    );
  });
});
