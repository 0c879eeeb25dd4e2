import { createHmac } from 'node:crypto';
import type { SshHostKey } from './tool-contract.types';

export const HOST_KEY_ALGORITHMS = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
  'ssh-rsa',
] as const;

export type HostKeyResult = { ok: true; key: SshHostKey } | { ok: false; found: string; expected: string };

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const KEY_EXPECTED = `a public host key "<algorithm> <base64>" with algorithm ${HOST_KEY_ALGORITHMS.join(' | ')} (e.g. from ssh-keyscan)`;

/** `ssh-ed25519 AAAA… [comment]`; the blob must itself say it is a key of that algorithm. */
export function parseHostKey(text: string): HostKeyResult {
  const [algorithm = '', blob = ''] = text.trim().split(/\s+/);
  if (!(HOST_KEY_ALGORITHMS as readonly string[]).includes(algorithm)) {
    return { ok: false, found: `algorithm ${JSON.stringify(algorithm)}`, expected: KEY_EXPECTED };
  }
  if (!BASE64.test(blob)) return { ok: false, found: 'a key that is not base64', expected: KEY_EXPECTED };
  const bytes = Buffer.from(blob, 'base64');
  const nameLength = bytes.length >= 4 ? bytes.readUInt32BE(0) : -1;
  const blobAlgorithm = nameLength > 0 && nameLength <= bytes.length - 4 ? bytes.subarray(4, 4 + nameLength).toString('latin1') : null;
  if (blobAlgorithm !== algorithm) {
    return {
      ok: false,
      found: blobAlgorithm ? `a ${blobAlgorithm} key blob labelled ${algorithm}` : 'a truncated or corrupt key blob',
      expected: 'the key exactly as ssh-keyscan or /etc/ssh/ssh_host_*_key.pub prints it',
    };
  }
  return { ok: true, key: { algorithm, publicKey: blob } };
}

/**
 * One `known_hosts` line. Its host patterns must cover the target (plain, `[host]:port`,
 * wildcard or hashed `|1|salt|hash`): a line copied from the wrong host would pin the wrong key.
 */
export function parseKnownHostsLine(line: string, host: string, port: number): HostKeyResult {
  const [patterns = '', ...rest] = line.trim().split(/\s+/);
  if (patterns.startsWith('@')) {
    return {
      ok: false,
      found: `a ${patterns} line`,
      expected: 'a plain known_hosts line that pins one key (no @cert-authority / @revoked)',
    };
  }
  const parsed = parseHostKey(rest.join(' '));
  if (!parsed.ok) return parsed;
  const wanted = port === 22 ? [host, `[${host}]:22`] : [`[${host}]:${port}`];
  if (!coversHost(patterns.split(','), wanted)) {
    return {
      ok: false,
      found: `an entry for ${patterns.startsWith('|1|') ? 'another (hashed) host' : patterns}`,
      expected: `a known_hosts entry for ${wanted[0]}`,
    };
  }
  return parsed;
}

function coversHost(patterns: readonly string[], wanted: readonly string[]): boolean {
  const matches = (pattern: string): boolean =>
    wanted.some((w) => (pattern.startsWith('|1|') ? hashedMatch(pattern, w) : globMatch(pattern, w)));
  if (patterns.some((p) => p.startsWith('!') && matches(p.slice(1)))) return false;
  return patterns.some((p) => !p.startsWith('!') && matches(p));
}

function hashedMatch(pattern: string, host: string): boolean {
  const [, , salt = '', hash = ''] = pattern.split('|');
  return createHmac('sha1', Buffer.from(salt, 'base64')).update(host).digest('base64') === hash;
}

function globMatch(pattern: string, host: string): boolean {
  const regex = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${regex}$`, 'i').test(host);
}
