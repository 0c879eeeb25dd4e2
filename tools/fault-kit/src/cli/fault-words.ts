import { FaultKitError } from '../errors';
import type { Direction, Fault } from '../proxy/fault';
import { UsageError } from './usage';

const DIRECTIONS: readonly string[] = ['to_upstream', 'to_client', 'both'];

function direction(word: string | undefined): Direction | undefined {
  if (word === undefined) return undefined;
  if (!DIRECTIONS.includes(word)) throw new UsageError(`direction "${word}" is not one of ${DIRECTIONS.join(', ')}`);
  return word as Direction;
}

function count(word: string | undefined, what: string): number {
  const value = Number(word);
  if (word === undefined || word.trim() === '' || !Number.isFinite(value) || value < 0) {
    throw new UsageError(`${what} needs a number ≥ 0, got ${word === undefined ? 'nothing' : `"${word}"`}`);
  }
  return value;
}

/** `latency 50 to_client`, `blackhole`, `reset_after_bytes 10`... as a Fault; `null` if not a fault word. */
export function faultFromWords(words: readonly string[]): Fault | null {
  const [kind, first, second] = words;
  switch (kind) {
    case 'latency':
      return { kind, ms: count(first, 'latency'), direction: direction(second) };
    case 'blackhole':
      return { kind, direction: direction(first) };
    case 'reset_after_bytes':
      return { kind, bytes: count(first, 'reset_after_bytes') };
    case 'half_open':
    case 'refuse':
      return { kind };
    default:
      return null;
  }
}

export interface ProxyFaultFlags {
  readonly latency?: string;
  readonly direction?: string;
  readonly blackhole?: boolean;
  readonly 'reset-after-bytes'?: string;
  readonly 'half-open'?: boolean;
  readonly refuse?: boolean;
}

/** The starting fault given by flags; more than one is a usage error. */
export function faultFromFlags(flags: ProxyFaultFlags): Fault | null {
  const chosen: Fault[] = [];
  if (flags.latency !== undefined)
    chosen.push({ kind: 'latency', ms: count(flags.latency, '--latency'), direction: direction(flags.direction) });
  if (flags.blackhole) chosen.push({ kind: 'blackhole', direction: direction(flags.direction) });
  if (flags['reset-after-bytes'] !== undefined)
    chosen.push({ kind: 'reset_after_bytes', bytes: count(flags['reset-after-bytes'], '--reset-after-bytes') });
  if (flags['half-open']) chosen.push({ kind: 'half_open' });
  if (flags.refuse) chosen.push({ kind: 'refuse' });
  if (chosen.length > 1) throw new UsageError('give at most one starting fault; switch faults at runtime on stdin');
  if (flags.direction !== undefined && !chosen.some((fault) => fault.kind === 'latency' || fault.kind === 'blackhole')) {
    throw new UsageError('--direction goes with --latency or --blackhole');
  }
  return chosen[0] ?? null;
}

/** Usage errors and kit errors that are the caller's doing (bad address, not loopback) exit with 2. */
export function isUsageProblem(error: unknown): boolean {
  return (
    error instanceof UsageError || (error instanceof FaultKitError && ['not_loopback', 'bad_address', 'bad_fault'].includes(error.code))
  );
}
