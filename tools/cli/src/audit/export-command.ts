import { once } from 'node:events';
import { type WriteStream, createWriteStream, openSync, renameSync, rmSync } from 'node:fs';
import { type ExportSummary, exportLines } from '@onceport/event-store';
import { type CliIo, printJson, println } from '../cli/cli-io';
import { EXIT, EXIT_CODES_HELP, usageError } from '../cli/exit-codes';
import { flag, noPositionals, parseOptions, stringOption, type Parsed } from '../cli/parse-options';
import { DATABASE_OPTIONS, databaseUrl } from '../cli/settings';
import { databaseError, openDatabase } from './open-database';
import { Progress } from './progress';

const PROGRESS_EVERY = 100_000;
const CHUNK_BYTES = 1 << 20;

export const EXPORT_HELP = `onceport audit export — write the event store (or a range) to a JSON Lines file

Usage:
  onceport audit export --out <file|-> [--from-position <n>] [--to-position <n>] [--database-url <url>] [--json] [--quiet]

Reads one consistent snapshot in global order. Line 1 is a header, then one event per line (every
stored column, hashes in hex), then a summary: each stream's first and last exported link, the event
count, and an anchor digest. Keep the anchor somewhere else (a ticket, a log): "onceport audit verify
--file <file> --expect-anchor <anchor>" then also catches a forger who rewrote the summary.
The file is written as <file>.partial and renamed when complete. Progress goes to stderr.

SENSITIVE MATERIAL: an export keeps every column as stored, because the hash chains cover them all.
Arguments a contract marks sensitive (card tokens, secrets an agent passed) are stored sealed
(AES-256-GCM under ONCEPORT_ENCRYPTION_KEYS) and exported sealed — this command never opens them.
Events written before sealing existed still hold them in clear, and every ExecutionAccepted line
holds the other arguments, model-written text included. Keep the file in an access-controlled place
(a new file is created owner-only, mode 0600), never attach it to a ticket or a chat, delete it when
done. "onceport trace --file" reads it without printing raw arguments.

Options:
  --out <file|->             where to write; - for stdout
  --from-position <n>        first global position to include (default: the first event)
  --to-position <n>          last global position to include (default: the last event)
  --database-url <url>       PostgreSQL holding the event store (default env DATABASE_URL)
  --json                     print {file, events, streams, anchor} on stdout when done (with --out <file>)
  --quiet                    no progress lines

${EXIT_CODES_HELP}`;

export async function exportCommand(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseOptions('audit export', args, {
    ...DATABASE_OPTIONS,
    out: { type: 'string', short: 'o' },
    'from-position': { type: 'string' },
    'to-position': { type: 'string' },
    json: { type: 'boolean' },
    quiet: { type: 'boolean' },
  });
  if (flag(parsed, 'help')) {
    println(io.stdout, EXPORT_HELP);
    return EXIT.ok;
  }
  noPositionals('audit export', parsed);
  const out = stringOption(parsed, 'out');
  if (!out) throw usageError('audit export: --out <file> is required (- writes to stdout)');
  const range = { fromPosition: position(parsed, 'from-position'), toPosition: position(parsed, 'to-position') };
  if (range.fromPosition !== null && range.toPosition !== null && range.fromPosition > range.toPosition)
    throw usageError('audit export: --from-position is after --to-position');
  const url = databaseUrl(parsed, io);
  const pool = await openDatabase(url);
  const progress = new Progress(io, 'exported', flag(parsed, 'quiet'));
  const file = out === '-' ? null : openOutput(`${out}.partial`);
  const target: NodeJS.WritableStream = file ?? io.stdout;
  let summary: ExportSummary | null = null;
  try {
    let chunk = '';
    let lines = 0;
    for await (const line of exportLines(pool, range, { done: (s) => (summary = s) })) {
      chunk += `${line}\n`;
      // Line 1 is the header, so line n + 1 is event n.
      const events = lines++;
      if (events > 0 && events % PROGRESS_EVERY === 0) progress.report(events);
      if (chunk.length >= CHUNK_BYTES) {
        if (!target.write(chunk)) await once(target, 'drain');
        chunk = '';
      }
    }
    target.write(chunk);
    if (file) {
      file.end();
      await once(file, 'finish');
      renameSync(`${out}.partial`, out);
    }
  } catch (error) {
    if (file) {
      file.destroy();
      rmSync(`${out}.partial`, { force: true });
    }
    throw isFileError(error)
      ? usageError(`audit export: cannot write ${out}: ${(error as NodeJS.ErrnoException).code}`)
      : databaseError(url, error);
  } finally {
    await pool.end();
  }
  return report(io, parsed, out, summary, progress);
}

function report(io: CliIo, parsed: Parsed, out: string, summary: ExportSummary | null, progress: Progress): number {
  if (!summary) throw new Error('the export ended without its summary');
  const { events, heads, anchor } = summary as ExportSummary;
  if (flag(parsed, 'json') && out !== '-') {
    printJson(io, { file: out, events, streams: heads.size, anchor });
  } else {
    const where = out === '-' ? 'stdout' : out;
    println(
      io.stderr,
      `exported ${events} events of ${heads.size} streams to ${where} in ${progress.seconds().toFixed(1)} s; anchor ${anchor}`,
    );
  }
  return EXIT.ok;
}

/** Opened up front, so an unwritable path is a clear usage error before any reading starts. */
function openOutput(path: string): WriteStream {
  let fd: number;
  try {
    // Owner-only: the export holds raw arguments (sensitive ones sealed, or clear in old events; see EXPORT_HELP).
    fd = openSync(path, 'w', 0o600);
  } catch (error) {
    throw usageError(`audit export: cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return createWriteStream('', { fd });
}

function isFileError(error: unknown): boolean {
  return typeof (error as { path?: unknown }).path === 'string';
}

function position(parsed: Parsed, name: string): bigint | null {
  const raw = stringOption(parsed, name);
  if (raw === undefined) return null;
  if (!/^[0-9]{1,18}$/.test(raw))
    throw usageError(`audit export: --${name} must be a global position (a whole number), not ${JSON.stringify(raw)}`);
  return BigInt(raw);
}
