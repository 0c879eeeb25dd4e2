import { createHmac, randomBytes } from 'node:crypto';
import { ED25519_HOST_KEY } from '../../test/contract-builders';
import { parseHostKey, parseKnownHostsLine } from './ssh-host-key';

const BLOB = ED25519_HOST_KEY.split(' ')[1] as string;

describe('SSH host keys', () => {
  it('accepts an authorized_keys-style key with a comment', () => {
    expect(parseHostKey(`${ED25519_HOST_KEY} root@db1`)).toEqual({ ok: true, key: { algorithm: 'ssh-ed25519', publicKey: BLOB } });
  });

  it('refuses unknown algorithms, non-base64 and corrupt blobs', () => {
    expect(parseHostKey(`ssh-dss ${BLOB}`)).toMatchObject({ ok: false, found: 'algorithm "ssh-dss"' });
    expect(parseHostKey('ssh-ed25519 not*base64')).toMatchObject({ ok: false, found: 'a key that is not base64' });
    expect(parseHostKey('ssh-ed25519 AAAA')).toMatchObject({ ok: false, found: 'a truncated or corrupt key blob' });
  });

  it('matches known_hosts entries by plain name, [host]:port, wildcard and hashed name', () => {
    expect(parseKnownHostsLine(`db1.internal,10.0.0.5 ${ED25519_HOST_KEY}`, 'db1.internal', 22).ok).toBe(true);
    expect(parseKnownHostsLine(`[db1.internal]:2222 ${ED25519_HOST_KEY}`, 'db1.internal', 2222).ok).toBe(true);
    expect(parseKnownHostsLine(`db1.internal ${ED25519_HOST_KEY}`, 'db1.internal', 2222).ok).toBe(false);
    expect(parseKnownHostsLine(`*.internal,!db2.internal ${ED25519_HOST_KEY}`, 'db1.internal', 22).ok).toBe(true);
    expect(parseKnownHostsLine(`*.internal,!db2.internal ${ED25519_HOST_KEY}`, 'db2.internal', 22).ok).toBe(false);
    const salt = randomBytes(20);
    const hash = createHmac('sha1', salt).update('db1.internal').digest('base64');
    const hashed = `|1|${salt.toString('base64')}|${hash} ${ED25519_HOST_KEY}`;
    expect(parseKnownHostsLine(hashed, 'db1.internal', 22).ok).toBe(true);
    expect(parseKnownHostsLine(hashed, 'db9.internal', 22)).toMatchObject({ ok: false, found: 'an entry for another (hashed) host' });
  });

  it('refuses @cert-authority and @revoked lines', () => {
    expect(parseKnownHostsLine(`@cert-authority *.internal ${ED25519_HOST_KEY}`, 'db1.internal', 22).ok).toBe(false);
  });
});
