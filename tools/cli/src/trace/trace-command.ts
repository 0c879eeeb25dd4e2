import { existsSync } from 'node:fs';
import { type CliIo, printJson, println } from '../cli/cli-io';
import { CliError, EXIT, EXIT_CODES_HELP, messageOf, usageError } from '../cli/exit-codes';
import { flag, onePositional, parseOptions, stringOption } from '../cli/parse-options';
import { DATABASE_OPTIONS, databaseUrl } from '../cli/settings';
import { databaseError, openDatabase } from '../audit/open-database';
import { type LoadedTrace, investigate, loadTraceFromDatabase, loadTraceFromFile, traceView } from '@onceport/execution-trace';
import { renderTrace } from './render-trace';

const EXECUTION_ID = /^exe_[0-9A-HJKMNP-TV-Z]{26}$/;

export const TRACE_HELP = `onceport trace — the timeline of one execution and the five questions of an investigation

Usage:
  onceport trace <execution-id> [--database-url <url> | --file <export.jsonl>] [--json]

Prints the execution's events in event order, then answers:
  1. was it one agent process or two;
  2. did the first call get authorized and reach dispatch;
  3. did the target answer;
  4. did delivery of the result fail after the target completed;
  5. did a later call attach to this execution, carry an idempotency key, or create a new attempt
     (a re-dispatch within it, or a new execution with the same fingerprint, actor and intent scope).
--json gives the timeline and each answer as a keyword plus the sentence.

Options:
  --database-url <url>   PostgreSQL holding the event store (default env DATABASE_URL)
  --file <path>          read an audit export instead of the database
  --json                 machine-readable output

${EXIT_CODES_HELP}`;

export async function traceCommand(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseOptions('trace', args, { ...DATABASE_OPTIONS, file: { type: 'string' }, json: { type: 'boolean' } });
  if (flag(parsed, 'help')) {
    println(io.stdout, TRACE_HELP);
    return EXIT.ok;
  }
  const executionId = onePositional('trace', parsed, 'execution id');
  if (!EXECUTION_ID.test(executionId))
    throw usageError(`trace: ${JSON.stringify(executionId)} is not an execution id (exe_ followed by 26 Crockford base32 characters)`);
  const file = stringOption(parsed, 'file');
  const loaded = file === undefined ? await fromDatabase(databaseUrl(parsed, io), executionId) : await fromFile(file, executionId);
  if (loaded.events.length === 0)
    throw new CliError(EXIT.notFound, `no execution ${executionId} ${file === undefined ? 'in the event store' : `in ${file}`}`);
  const investigation = investigate(executionId, loaded.events, loaded.laterExecutions);
  if (flag(parsed, 'json')) printJson(io, traceView(loaded, investigation));
  else println(io.stdout, renderTrace(loaded.events, investigation));
  return EXIT.ok;
}

async function fromDatabase(url: string, executionId: string): Promise<LoadedTrace> {
  const pool = await openDatabase(url);
  try {
    return await loadTraceFromDatabase(pool, executionId);
  } catch (error) {
    throw databaseError(url, error);
  } finally {
    await pool.end();
  }
}

async function fromFile(file: string, executionId: string): Promise<LoadedTrace> {
  if (!existsSync(file)) throw usageError(`trace: --file ${file}: no such file`);
  try {
    return await loadTraceFromFile(file, executionId);
  } catch (error) {
    throw new CliError(EXIT.failed, `trace: cannot read ${file} as an audit export: ${messageOf(error)}`);
  }
}
