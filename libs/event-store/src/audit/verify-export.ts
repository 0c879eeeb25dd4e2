import { type BrokenLink, type BrokenLinkProblem, ChainVerifier, type StreamLink } from './chain-verifier';
import { type ExportHeader, type ExportSummary, MalformedExportLineError, parseExportLine } from './export-format';
import { anchorOf } from './export-summary';

export interface ExportBrokenLink extends BrokenLink {
  /** The 1-based line of the export where it shows; null for a problem found in the summary at the end. */
  readonly line: number | null;
}

export interface ExportVerificationReport {
  readonly eventsChecked: number;
  readonly streamsChecked: number;
  readonly firstBrokenLink: ExportBrokenLink | null;
  readonly header: ExportHeader | null;
  /** The anchor of the verified export (from its events), for comparing with one kept elsewhere. */
  readonly anchor: string | null;
}

export interface VerifyExportOptions {
  readonly onProgress?: (eventsChecked: number) => void;
  readonly progressEvery?: number;
  /** An anchor recorded at export time; a different one fails verification. */
  readonly expectAnchor?: string;
}

/**
 * Verifies an audit export offline: each stream's chain, the global order of the lines, and every
 * stream's start and end against the summary line — which is what shows a stream's newest event
 * removed, a stream dropped entirely, or the file cut short.
 */
export async function verifyExport(
  lines: AsyncIterable<string> | Iterable<string>,
  options: VerifyExportOptions = {},
): Promise<ExportVerificationReport> {
  const progressEvery = options.progressEvery ?? 100_000;
  let header: ExportHeader | null = null;
  let summary: ExportSummary | null = null;
  let verifier = new ChainVerifier({ requireGlobalOrder: true });
  let lineNumber = 0;
  const report = (broken: ExportBrokenLink | null, anchor: string | null = null): ExportVerificationReport => ({
    eventsChecked: verifier.eventsChecked,
    streamsChecked: verifier.heads().size,
    firstBrokenLink: broken,
    header,
    anchor,
  });
  const fileProblem = (problem: BrokenLinkProblem, detail: string, line: number | null = lineNumber): ExportVerificationReport =>
    report({ streamId: '', streamVersion: 0, globalPosition: null, problem, detail, line });

  for await (const text of lines) {
    lineNumber++;
    if (text.trim() === '') continue;
    let parsed;
    try {
      parsed = parseExportLine(text);
    } catch (error) {
      if (error instanceof MalformedExportLineError) return fileProblem('malformed_line', error.message);
      throw error;
    }
    if (summary) return fileProblem('malformed_line', 'a line after the summary');
    if (parsed.kind === 'header') {
      if (header || lineNumber !== 1) return fileProblem('malformed_line', 'a header that is not the first line');
      header = parsed.header;
      verifier = new ChainVerifier({ requireGlobalOrder: true, streamsMayStartLater: header.fromPosition !== null });
    } else if (!header) {
      return fileProblem('malformed_line', 'the first line is not an export header');
    } else if (parsed.kind === 'summary') {
      summary = parsed.summary;
    } else {
      const broken = verifier.check(parsed.event);
      if (broken) return report({ ...broken, line: lineNumber });
      if (options.onProgress && verifier.eventsChecked % progressEvery === 0) options.onProgress(verifier.eventsChecked);
    }
  }
  if (!header) return fileProblem('malformed_line', 'an empty file, not an export', null);
  if (!summary) return fileProblem('summary_missing', 'no summary line at the end: the export was cut short or its end removed', null);
  const mismatch = compareWithSummary(verifier, summary);
  if (mismatch) return report({ ...mismatch, line: null });
  const anchor = anchorOf(verifier.eventsChecked, verifier.starts(), verifier.heads());
  if (anchor !== summary.anchor)
    return fileProblem(
      'summary_anchor_mismatch',
      `the summary's anchor ${summary.anchor} is not the digest of its own contents (${anchor})`,
      null,
    );
  if (options.expectAnchor !== undefined && options.expectAnchor.toLowerCase() !== anchor) {
    return report(
      {
        streamId: '',
        streamVersion: 0,
        globalPosition: null,
        problem: 'anchor_mismatch',
        detail: `the export's anchor is ${anchor}, not the expected ${options.expectAnchor}`,
        line: null,
      },
      anchor,
    );
  }
  return report(null, anchor);
}

function compareWithSummary(verifier: ChainVerifier, summary: ExportSummary): BrokenLink | null {
  for (const [streamId, head] of verifier.heads()) {
    const recorded = summary.heads.get(streamId);
    if (!recorded)
      return streamProblem(
        streamId,
        head.version,
        'stream_unlisted',
        'the summary does not name this stream: its events were added to the export',
      );
    const headDiffers = describeDifference(recorded, head, 'ends');
    if (headDiffers) return streamProblem(streamId, Math.max(head.version, recorded.version), 'stream_head_mismatch', headDiffers);
    const start = verifier.starts().get(streamId);
    const recordedStart = summary.startsAfter.get(streamId);
    if (start || recordedStart) {
      const startDiffers = describeStart(recordedStart, start);
      if (startDiffers) return streamProblem(streamId, (recordedStart?.version ?? 0) + 1, 'stream_start_mismatch', startDiffers);
    }
  }
  for (const [streamId, recorded] of summary.heads) {
    if (!verifier.heads().has(streamId))
      return streamProblem(
        streamId,
        recorded.version,
        'stream_missing',
        `the summary says this stream ends at version ${recorded.version}, but the export has none of its events`,
      );
  }
  if (summary.events !== verifier.eventsChecked) {
    return streamProblem(
      '',
      0,
      'event_count_mismatch',
      `the summary counts ${summary.events} events, the export has ${verifier.eventsChecked}`,
    );
  }
  return null;
}

function describeDifference(recorded: StreamLink, seen: StreamLink, verb: 'ends'): string | null {
  if (seen.version < recorded.version) {
    return `the summary says the stream ${verb} at version ${recorded.version}, the events stop at ${seen.version}: its newest event${recorded.version - seen.version > 1 ? 's were' : ' was'} removed`;
  }
  if (seen.version > recorded.version)
    return `the summary says the stream ${verb} at version ${recorded.version}, the events go on to ${seen.version}: events were added after it`;
  if (!seen.chainHash.equals(recorded.chainHash))
    return `version ${seen.version} is not the event the summary recorded (chain hash differs)`;
  return null;
}

function describeStart(recorded: StreamLink | undefined, seen: StreamLink | undefined): string | null {
  const recordedFirst = (recorded?.version ?? 0) + 1;
  const seenFirst = (seen?.version ?? 0) + 1;
  if (seenFirst > recordedFirst)
    return `the summary says the stream's first exported event is version ${recordedFirst}, the events start at ${seenFirst}: the first event was removed`;
  if (seenFirst < recordedFirst)
    return `the summary says the stream's first exported event is version ${recordedFirst}, the events start at ${seenFirst}: events were added before it`;
  if (recorded && seen && !recorded.chainHash.equals(seen.chainHash))
    return `version ${seenFirst} does not link to the chain hash the summary recorded`;
  return null;
}

function streamProblem(streamId: string, streamVersion: number, problem: BrokenLinkProblem, detail: string): BrokenLink {
  return { streamId, streamVersion, globalPosition: null, problem, detail };
}
