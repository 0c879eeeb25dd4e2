import { createHash } from 'node:crypto';
import type { ChainedEvent, StreamLink } from './chain-verifier';
import type { ExportSummary } from './export-format';

/**
 * One digest of where every stream of an export starts and ends: equal anchors mean the same
 * events, since each head's chain hash covers its whole stream. Streams are sorted so the anchor
 * does not depend on export order.
 */
export function anchorOf(events: number, startsAfter: ReadonlyMap<string, StreamLink>, heads: ReadonlyMap<string, StreamLink>): string {
  const digest = createHash('sha256').update(`onceport-audit-anchor/1\nevents ${events}\n`);
  for (const [label, links] of [
    ['start', startsAfter],
    ['head', heads],
  ] as const) {
    for (const [streamId, link] of [...links].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      digest.update(`${label} ${JSON.stringify(streamId)} ${link.version} ${link.chainHash.toString('hex')}\n`);
    }
  }
  return digest.digest('hex');
}

/** Collects an export's summary as its events are written. */
export class SummaryCollector {
  private readonly startsAfter = new Map<string, StreamLink>();
  private readonly heads = new Map<string, StreamLink>();
  private events = 0;

  add(event: ChainedEvent): void {
    if (!this.heads.has(event.streamId) && event.streamVersion > 1) {
      this.startsAfter.set(event.streamId, { version: event.streamVersion - 1, chainHash: event.prevHash });
    }
    this.heads.set(event.streamId, { version: event.streamVersion, chainHash: event.chainHash });
    this.events++;
  }

  summary(): ExportSummary {
    return {
      events: this.events,
      startsAfter: this.startsAfter,
      heads: this.heads,
      anchor: anchorOf(this.events, this.startsAfter, this.heads),
    };
  }
}
