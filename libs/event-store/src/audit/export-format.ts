import type { JsonObject } from '../json';
import type { ChainedEvent, StreamLink } from './chain-verifier';

/**
 * The audit export is JSON Lines: a header, one line per event in global order, and a summary.
 * The summary records where every stream of the export starts and ends, so a verifier can see what
 * a per-stream chain cannot: a stream's newest event removed (or one appended), or the first event
 * after a range start removed. Its `anchor` digests the summary; kept elsewhere (a ticket, a log),
 * it also catches a forger who rewrote the summary to match.
 */
export const EXPORT_FORMAT = 'onceport-audit-export';
export const EXPORT_FORMAT_VERSION = 1;

export interface ExportHeader {
  readonly format: typeof EXPORT_FORMAT;
  readonly formatVersion: number;
  readonly exportedAt: string;
  /** Inclusive global-position bounds the export was asked for; null = unbounded. */
  readonly fromPosition: bigint | null;
  readonly toPosition: bigint | null;
}

export interface ExportSummary {
  readonly events: number;
  /** For streams whose first exported event is not version 1: the version and chain hash it follows. */
  readonly startsAfter: ReadonlyMap<string, StreamLink>;
  /** Every exported stream's last event. */
  readonly heads: ReadonlyMap<string, StreamLink>;
  readonly anchor: string;
}

export function headerLine(header: ExportHeader): string {
  return JSON.stringify({
    format: header.format,
    format_version: header.formatVersion,
    exported_at: header.exportedAt,
    from_position: header.fromPosition === null ? null : String(header.fromPosition),
    to_position: header.toPosition === null ? null : String(header.toPosition),
  });
}

export function eventLine(event: ChainedEvent): string {
  return JSON.stringify({
    global_position: String(event.globalPosition),
    event_id: event.eventId,
    stream_id: event.streamId,
    stream_version: event.streamVersion,
    type: event.type,
    schema_version: event.schemaVersion,
    data: event.data,
    metadata: event.metadata,
    recorded_at: event.recordedAt.toISOString(),
    content_hash: event.contentHash.toString('hex'),
    prev_hash: event.prevHash.toString('hex'),
    chain_hash: event.chainHash.toString('hex'),
  });
}

export function summaryLine(summary: ExportSummary): string {
  return JSON.stringify({
    summary: {
      events: summary.events,
      streams: summary.heads.size,
      starts_after: linksToJson(summary.startsAfter),
      heads: linksToJson(summary.heads),
      anchor: summary.anchor,
    },
  });
}

export type ExportLine =
  | { readonly kind: 'header'; readonly header: ExportHeader }
  | { readonly kind: 'event'; readonly event: ChainedEvent }
  | { readonly kind: 'summary'; readonly summary: ExportSummary };

/** Thrown for a line that is not a header, an event or a summary of this format; says what is wrong. */
export class MalformedExportLineError extends Error {}

/** Parses one line of an export; throws {@link MalformedExportLineError} naming the first bad field. */
export function parseExportLine(line: string): ExportLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new MalformedExportLineError('not JSON');
  }
  if (!isObject(value)) throw new MalformedExportLineError('not a JSON object');
  if ('event_id' in value) return { kind: 'event', event: parseEvent(value) };
  if ('summary' in value) return { kind: 'summary', summary: parseSummary(value['summary']) };
  if (value['format'] === EXPORT_FORMAT) return { kind: 'header', header: parseHeader(value) };
  throw new MalformedExportLineError('neither a header, an event nor a summary');
}

function parseEvent(o: Record<string, unknown>): ChainedEvent {
  const recordedAt = new Date(str(o, 'recorded_at'));
  if (Number.isNaN(recordedAt.getTime())) throw new MalformedExportLineError('recorded_at: not a timestamp');
  return {
    globalPosition: position(o, 'global_position'),
    eventId: str(o, 'event_id'),
    streamId: str(o, 'stream_id'),
    streamVersion: int(o, 'stream_version'),
    type: str(o, 'type'),
    schemaVersion: int(o, 'schema_version'),
    data: obj(o, 'data'),
    metadata: obj(o, 'metadata'),
    recordedAt,
    contentHash: hash(o, 'content_hash'),
    prevHash: hash(o, 'prev_hash'),
    chainHash: hash(o, 'chain_hash'),
  };
}

function parseHeader(o: Record<string, unknown>): ExportHeader {
  const formatVersion = int(o, 'format_version');
  if (formatVersion !== EXPORT_FORMAT_VERSION)
    throw new MalformedExportLineError(`format_version ${formatVersion} is not ${EXPORT_FORMAT_VERSION}`);
  return {
    format: EXPORT_FORMAT,
    formatVersion,
    exportedAt: str(o, 'exported_at'),
    fromPosition: o['from_position'] === null ? null : position(o, 'from_position'),
    toPosition: o['to_position'] === null ? null : position(o, 'to_position'),
  };
}

function parseSummary(value: unknown): ExportSummary {
  if (!isObject(value)) throw new MalformedExportLineError('summary: not an object');
  return {
    events: int(value, 'events'),
    startsAfter: linksFromJson(value, 'starts_after'),
    heads: linksFromJson(value, 'heads'),
    anchor: str(value, 'anchor'),
  };
}

function linksToJson(links: ReadonlyMap<string, StreamLink>): Record<string, [number, string]> {
  const out: Record<string, [number, string]> = {};
  for (const [streamId, link] of links) out[streamId] = [link.version, link.chainHash.toString('hex')];
  return out;
}

function linksFromJson(o: Record<string, unknown>, key: string): Map<string, StreamLink> {
  const value = o[key];
  if (!isObject(value)) throw new MalformedExportLineError(`summary.${key}: not an object`);
  const links = new Map<string, StreamLink>();
  for (const [streamId, link] of Object.entries(value)) {
    const [version, chain] = Array.isArray(link) ? link : [];
    if (!Number.isInteger(version) || typeof chain !== 'string' || !/^[0-9a-f]{64}$/.test(chain)) {
      throw new MalformedExportLineError(`summary.${key}.${streamId}: expected [version, chain hash hex]`);
    }
    links.set(streamId, { version: version as number, chainHash: Buffer.from(chain, 'hex') });
  }
  return links;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(o: Record<string, unknown>, key: string): string {
  const value = o[key];
  if (typeof value !== 'string') throw new MalformedExportLineError(`${key}: expected a string`);
  return value;
}

function int(o: Record<string, unknown>, key: string): number {
  const value = o[key];
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new MalformedExportLineError(`${key}: expected an integer`);
  return value;
}

function position(o: Record<string, unknown>, key: string): bigint {
  const value = o[key];
  if (typeof value !== 'string' || !/^[0-9]{1,19}$/.test(value)) throw new MalformedExportLineError(`${key}: expected a decimal string`);
  return BigInt(value);
}

function obj(o: Record<string, unknown>, key: string): JsonObject {
  const value = o[key];
  if (!isObject(value)) throw new MalformedExportLineError(`${key}: expected an object`);
  return value as JsonObject;
}

function hash(o: Record<string, unknown>, key: string): Buffer {
  const value = str(o, key);
  if (!/^[0-9a-f]{64}$/.test(value)) throw new MalformedExportLineError(`${key}: expected 64 hex digits`);
  return Buffer.from(value, 'hex');
}
