import { existsSync } from 'node:fs';
import {
  type BrokenLink,
  type ExportBrokenLink,
  readChainsFromDatabase,
  readExportSummary,
  readLines,
  verifyChains,
  verifyCheckpoint,
  verifyExport,
} from '@onceport/event-store';
import { type CliIo, printJson, println } from '../cli/cli-io';
import { EXIT, EXIT_CODES_HELP, usageError } from '../cli/exit-codes';
import { flag, noPositionals, parseOptions, stringOption, type Parsed } from '../cli/parse-options';
import { DATABASE_OPTIONS, databaseUrl } from '../cli/settings';
import { databaseError, openDatabase } from './open-database';
import { Progress } from './progress';

export const VERIFY_HELP = `onceport audit verify — check the hash chains offline and name the first broken link

Usage:
  onceport audit verify --file <export.jsonl> [--expect-anchor <hex>] [--json] [--quiet]
  onceport audit verify [--database-url <url>] [--checkpoint <earlier-export.jsonl>] [--json] [--quiet]

From a file (written by "onceport audit export"): every stream's chain (content hash, link to the
previous event, chain hash, versions without gaps), the global order of the lines, and each stream's
first and last event against the file's summary — which is what shows a stream's newest event
removed, a stream dropped whole, or the file cut short. --expect-anchor compares with the anchor
printed at export time, kept elsewhere: that also catches a rewritten summary.

From the database (--database-url or env DATABASE_URL): every stream's chain, read stream by stream.
A stream's newest events removed from the database leave no broken link behind them; --checkpoint
checks that every stream head of an earlier export is still there, unchanged (the store is
append-only, so it must be).

The first broken link is named by stream, version, global position (and line of the file) with what
is wrong: content_changed, version_gap, version_out_of_order, previous_hash_mismatch,
chain_hash_mismatch, global_position_out_of_order, stream_head_mismatch, stream_start_mismatch,
stream_missing, stream_unlisted, event_count_mismatch, summary_missing, summary_anchor_mismatch,
anchor_mismatch, malformed_line. Progress goes to stderr every 100,000 events (--progress-every).

Options:
  --file <path>              verify an export file
  --expect-anchor <hex>      the anchor the export must have
  --database-url <url>       verify the database (default env DATABASE_URL)
  --checkpoint <path>        an earlier export whose stream heads the database must still hold
  --json                     print the report as JSON
  --quiet                    no progress lines
  --progress-every <n>       a progress line every n events (default 100000)

${EXIT_CODES_HELP}`;

interface Outcome {
  readonly source: string;
  readonly eventsChecked: number;
  readonly streamsChecked: number;
  readonly firstBrokenLink: BrokenLink | ExportBrokenLink | null;
  readonly anchor: string | null;
  readonly checkpoint: string | null;
}

export async function verifyCommand(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseOptions('audit verify', args, {
    ...DATABASE_OPTIONS,
    file: { type: 'string' },
    'expect-anchor': { type: 'string' },
    checkpoint: { type: 'string' },
    json: { type: 'boolean' },
    quiet: { type: 'boolean' },
    'progress-every': { type: 'string' },
  });
  if (flag(parsed, 'help')) {
    println(io.stdout, VERIFY_HELP);
    return EXIT.ok;
  }
  noPositionals('audit verify', parsed);
  const file = stringOption(parsed, 'file');
  const progress = new Progress(io, 'verified', flag(parsed, 'quiet'));
  const every = progressEvery(parsed);
  const outcome = file === undefined ? await verifyDatabase(parsed, io, progress, every) : await verifyFile(file, parsed, progress, every);
  print(io, parsed, outcome, progress);
  return outcome.firstBrokenLink ? EXIT.failed : EXIT.ok;
}

const DEFAULT_PROGRESS_EVERY = 100_000;

function progressEvery(parsed: Parsed): number {
  const raw = stringOption(parsed, 'progress-every');
  if (raw === undefined) return DEFAULT_PROGRESS_EVERY;
  if (!/^[1-9][0-9]{0,9}$/.test(raw))
    throw usageError(`audit verify: --progress-every must be a positive whole number, not ${JSON.stringify(raw)}`);
  return Number(raw);
}

async function verifyFile(file: string, parsed: Parsed, progress: Progress, every: number): Promise<Outcome> {
  if (stringOption(parsed, 'checkpoint') !== undefined || stringOption(parsed, 'database-url') !== undefined) {
    throw usageError('audit verify: --checkpoint and --database-url verify the database; they do not go with --file');
  }
  const expectAnchor = stringOption(parsed, 'expect-anchor');
  if (expectAnchor !== undefined && !/^[0-9a-fA-F]{64}$/.test(expectAnchor))
    throw usageError('audit verify: --expect-anchor must be 64 hex digits');
  mustExist(file, '--file');
  const report = await verifyExport(readLines(file), {
    onProgress: progress.report,
    progressEvery: every,
    ...(expectAnchor ? { expectAnchor } : {}),
  });
  return { source: file, ...report, checkpoint: null };
}

async function verifyDatabase(parsed: Parsed, io: CliIo, progress: Progress, every: number): Promise<Outcome> {
  if (stringOption(parsed, 'expect-anchor') !== undefined)
    throw usageError('audit verify: --expect-anchor goes with --file (a live database has no fixed anchor; use --checkpoint)');
  const checkpointFile = stringOption(parsed, 'checkpoint');
  if (checkpointFile !== undefined) mustExist(checkpointFile, '--checkpoint');
  const url = databaseUrl(parsed, io);
  const checkpoint = checkpointFile === undefined ? null : await readExportSummary(checkpointFile).catch(() => null);
  if (checkpointFile !== undefined && !checkpoint)
    throw usageError(`audit verify: --checkpoint ${checkpointFile} does not end with an export summary`);
  const pool = await openDatabase(url);
  try {
    const report = await verifyChains(readChainsFromDatabase(pool), { onProgress: progress.report, progressEvery: every });
    const broken = report.firstBrokenLink ?? (checkpoint ? await verifyCheckpoint(pool, checkpoint.heads) : null);
    return { source: 'database', ...report, firstBrokenLink: broken, anchor: null, checkpoint: checkpointFile ?? null };
  } catch (error) {
    throw databaseError(url, error);
  } finally {
    await pool.end();
  }
}

function mustExist(path: string, option: string): void {
  if (!existsSync(path)) throw usageError(`audit verify: ${option} ${path}: no such file`);
}

function print(io: CliIo, parsed: Parsed, outcome: Outcome, progress: Progress): void {
  const seconds = progress.seconds();
  const broken = outcome.firstBrokenLink;
  if (flag(parsed, 'json')) {
    printJson(io, {
      ok: broken === null,
      source: outcome.source,
      events_checked: outcome.eventsChecked,
      streams_checked: outcome.streamsChecked,
      seconds: Number(seconds.toFixed(3)),
      events_per_second: progress.rate(outcome.eventsChecked),
      anchor: outcome.anchor,
      checkpoint: outcome.checkpoint,
      first_broken_link: broken && {
        stream_id: broken.streamId || null,
        stream_version: broken.streamVersion || null,
        global_position: broken.globalPosition === null ? null : String(broken.globalPosition),
        line: 'line' in broken ? broken.line : null,
        problem: broken.problem,
        detail: broken.detail,
      },
    });
    return;
  }
  const counted = `${outcome.eventsChecked} events in ${outcome.streamsChecked} streams`;
  if (!broken) {
    println(
      io.stdout,
      `ok: ${counted} verified from ${outcome.source} in ${seconds.toFixed(1)} s (${progress.rate(outcome.eventsChecked)} events/s)${outcome.anchor ? `; anchor ${outcome.anchor}` : ''}`,
    );
    if (outcome.source === 'database' && !outcome.checkpoint)
      println(
        io.stdout,
        "note: a stream's newest events removed leave no broken link; pass --checkpoint <earlier export> to check for that",
      );
    return;
  }
  println(io.stdout, `FAILED: first broken link: ${describe(broken)}`);
  println(io.stdout, `(${counted} verified before it)`);
}

/** "stream b, version 2 (global position 7, line 8): content_changed — …" */
export function describe(broken: BrokenLink | ExportBrokenLink): string {
  const where: string[] = [];
  if (broken.globalPosition !== null) where.push(`global position ${broken.globalPosition}`);
  if ('line' in broken && broken.line !== null) where.push(`line ${broken.line}`);
  const stream = broken.streamId ? `stream ${broken.streamId}, version ${broken.streamVersion}` : 'the export';
  return `${stream}${where.length ? ` (${where.join(', ')})` : ''}: ${broken.problem} — ${broken.detail}`;
}
