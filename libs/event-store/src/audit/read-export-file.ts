import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { type ExportSummary, parseExportLine } from './export-format';

/** The lines of a file, streamed (an export of millions of events never sits in memory whole). */
export function readLines(path: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
}

/** The summary of an export file (its last non-empty line), e.g. to use its heads as a checkpoint. */
export async function readExportSummary(path: string): Promise<ExportSummary | null> {
  let last: string | null = null;
  for await (const line of readLines(path)) if (line.trim() !== '') last = line;
  if (last === null) return null;
  const parsed = parseExportLine(last);
  return parsed.kind === 'summary' ? parsed.summary : null;
}
