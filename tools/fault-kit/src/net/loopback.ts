import { isIP } from 'node:net';
import { FaultKitError } from '../errors';

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/**
 * True for 127.0.0.0/8, ::1, their IPv4-mapped forms and `localhost`. The kit only ever touches
 * loopback: a fault proxy pointed at a real network address would be a way to hurt someone else.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  const family = isIP(bare);
  if (family === 4) return bare.startsWith('127.');
  if (family === 6) return bare === '::1' || /^::ffff:127\./.test(bare) || bare === '0:0:0:0:0:0:0:1';
  return false;
}

/** Throws `not_loopback` naming the role (listen / upstream) and the rejected host. */
export function assertLoopback(host: string, role: string): void {
  if (!isLoopbackHost(host)) {
    throw new FaultKitError(
      'not_loopback',
      `${role} host "${host}" is not a loopback address: the fault kit only works on 127.0.0.0/8, ::1 or localhost`,
    );
  }
}

/** Parses `host:port`, `[::1]:port` or a bare port (host 127.0.0.1). */
export function parseHostPort(text: string, role: string): HostPort {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(text) ?? /^()()(\d+)$/.exec(text);
  const port = Number(match?.[3]);
  if (!match || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new FaultKitError('bad_address', `${role} "${text}" is not host:port (e.g. 127.0.0.1:5432)`);
  }
  const host = match[1] || match[2] || '127.0.0.1';
  return { host, port };
}
