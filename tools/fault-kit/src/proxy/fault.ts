import { FaultKitError } from '../errors';

/** `to_upstream`: bytes the client sends; `to_client`: bytes the upstream answers. */
export type Direction = 'to_upstream' | 'to_client' | 'both';

/**
 * One fault at a time; `setFault` replaces the previous one, on live and new connections alike.
 * - `latency`: every chunk waits `ms` before it is forwarded; order is kept.
 * - `blackhole`: bytes are read and thrown away; a close (FIN) in that direction is swallowed too,
 *   so the other side hears nothing at all.
 * - `reset_after_bytes`: after `bytes` more bytes client→upstream on a connection (counted from the
 *   moment the fault is set, or from the connection's start), the upstream gets exactly those bytes
 *   and then both sides get a TCP RST.
 * - `half_open`: nothing is read or forwarded and no close is passed on, in either direction; both
 *   sockets stay open, as with a peer gone silent behind a partition. `clear()` lets the held bytes
 *   through.
 * - `refuse`: new connections are reset as soon as they are accepted; live ones carry on.
 */
export type Fault =
  | { readonly kind: 'latency'; readonly ms: number; readonly direction?: Direction }
  | { readonly kind: 'blackhole'; readonly direction?: Direction }
  | { readonly kind: 'reset_after_bytes'; readonly bytes: number }
  | { readonly kind: 'half_open' }
  | { readonly kind: 'refuse' };

export type FaultKind = Fault['kind'];

/** What one direction of a connection does with the bytes it reads. */
export type PumpMode = { readonly kind: 'pass'; readonly delayMs: number } | { readonly kind: 'drop' } | { readonly kind: 'hold' };

const PASS: PumpMode = { kind: 'pass', delayMs: 0 };

function covers(direction: Direction | undefined, which: 'to_upstream' | 'to_client'): boolean {
  return direction === undefined || direction === 'both' || direction === which;
}

/** The mode of one direction under a fault (`null`: no fault). */
export function pumpModeFor(fault: Fault | null, which: 'to_upstream' | 'to_client'): PumpMode {
  if (!fault) return PASS;
  switch (fault.kind) {
    case 'latency':
      return covers(fault.direction, which) ? { kind: 'pass', delayMs: fault.ms } : PASS;
    case 'blackhole':
      return covers(fault.direction, which) ? { kind: 'drop' } : PASS;
    case 'half_open':
      return { kind: 'hold' };
    case 'reset_after_bytes':
    case 'refuse':
      return PASS;
    default: {
      const _exhaustive: never = fault;
      return _exhaustive;
    }
  }
}

/** Rejects nonsense early with `bad_fault` (negative latency, a byte count that is not an integer...). */
export function validateFault(fault: Fault): Fault {
  const bad = (why: string): never => {
    throw new FaultKitError('bad_fault', `fault ${JSON.stringify(fault)}: ${why}`);
  };
  if ('direction' in fault && fault.direction !== undefined && !['to_upstream', 'to_client', 'both'].includes(fault.direction)) {
    bad('direction must be to_upstream, to_client or both');
  }
  if (fault.kind === 'latency' && !(Number.isFinite(fault.ms) && fault.ms >= 0)) bad('ms must be a number ≥ 0');
  if (fault.kind === 'reset_after_bytes' && !(Number.isInteger(fault.bytes) && fault.bytes >= 0)) bad('bytes must be an integer ≥ 0');
  if (!['latency', 'blackhole', 'reset_after_bytes', 'half_open', 'refuse'].includes(fault.kind)) bad('unknown kind');
  return fault;
}

/** A one-line human description, for logs and the CLI. */
export function describeFault(fault: Fault | null): string {
  if (!fault) return 'no fault';
  switch (fault.kind) {
    case 'latency':
      return `latency ${fault.ms} ms (${fault.direction ?? 'both'})`;
    case 'blackhole':
      return `blackhole (${fault.direction ?? 'both'})`;
    case 'reset_after_bytes':
      return `reset after ${fault.bytes} bytes client→upstream`;
    case 'half_open':
      return 'half-open (nothing forwarded, nothing closed)';
    case 'refuse':
      return 'refuse new connections';
    default: {
      const _exhaustive: never = fault;
      return _exhaustive;
    }
  }
}
