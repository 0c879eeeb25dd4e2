import { type CliIo, printJson, println } from '../cli/cli-io';
import { EXIT, EXIT_CODES_HELP, usageError } from '../cli/exit-codes';
import { flag, isHelp, noPositionals, onePositional, parseOptions, requiredReason, stringOption } from '../cli/parse-options';
import { ADMIN_HELP, ADMIN_OPTIONS, adminKey, serviceUrl } from '../cli/settings';
import { AdminClient } from './admin-client';

interface QuarantineEntry {
  readonly subscriber: string;
  readonly event_id: string;
  readonly stream_id: string;
  readonly global_position: string;
  readonly event_type: string;
  readonly status: string;
  readonly attempts: number;
  readonly last_error: string;
  readonly first_attempt_at: string;
  readonly last_attempt_at: string;
  readonly retry_requested_by: string | null;
  readonly closed_by: string | null;
  readonly close_reason: string | null;
}

const STATUSES = ['open', 'failing', 'resolved', 'released', 'all'];

export const QUARANTINE_HELP = `onceport quarantine — events a projection or consumer could not apply and skipped (authorization service)

Usage:
  onceport quarantine list [--status open|failing|resolved|released|all] [--subscriber <name>] [--json]
  onceport quarantine retry <event-id> --subscriber <name> [--json]
  onceport quarantine release <event-id> --subscriber <name> --reason "<why>" [--json]

An event is quarantined after ONCEPORT_QUARANTINE_AFTER_ATTEMPTS failed attempts (default 5); every
other event keeps flowing. list shows the open entries by default. retry asks the subscriber that
owns the event (e.g. projection:execution-matches, consumer:authorization) to apply it again on its
next pass: applied, the entry is resolved; failing again, it stays quarantined with the new error.
release gives up on it for good; --reason is required and recorded with who released it.

${ADMIN_HELP}

${EXIT_CODES_HELP}`;

export async function quarantineCommand(args: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  const command = `quarantine ${sub ?? ''}`.trim();
  const parsed = parseOptions(command, rest, {
    ...ADMIN_OPTIONS,
    status: { type: 'string' },
    subscriber: { type: 'string' },
    reason: { type: 'string' },
  });
  if (flag(parsed, 'help') || sub === undefined || isHelp(sub)) {
    println(sub === undefined ? io.stderr : io.stdout, QUARANTINE_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  const client = (): AdminClient => new AdminClient('authorization', serviceUrl(parsed, io, 'authorization'), adminKey(parsed, io));
  const json = flag(parsed, 'json');
  switch (sub) {
    case 'list': {
      noPositionals(command, parsed);
      const status = stringOption(parsed, 'status') ?? 'open';
      if (!STATUSES.includes(status)) throw usageError(`quarantine list: --status must be one of ${STATUSES.join(', ')}`);
      const subscriber = stringOption(parsed, 'subscriber');
      const query = new URLSearchParams({ status, ...(subscriber ? { subscriber } : {}) });
      const answer = await client().get<{ entries: QuarantineEntry[] }>(`/v1/admin/quarantine?${query.toString()}`);
      if (json) printJson(io, answer);
      else if (answer.entries.length === 0) println(io.stdout, `no ${status === 'all' ? '' : `${status} `}quarantine entries`);
      else println(io.stdout, answer.entries.map(renderEntry).join('\n\n'));
      return EXIT.ok;
    }
    case 'retry':
    case 'release': {
      const eventId = onePositional(command, parsed, 'event id');
      const subscriber = stringOption(parsed, 'subscriber');
      if (!subscriber) throw usageError(`${command}: --subscriber <name> is required (see onceport quarantine list)`);
      const path = `/v1/admin/quarantine/${encodeURIComponent(subscriber)}/${encodeURIComponent(eventId)}/${sub}`;
      const entry = await client().post<QuarantineEntry>(path, sub === 'release' ? { reason: requiredReason(command, parsed) } : {});
      if (json) printJson(io, entry);
      else if (sub === 'retry')
        println(
          io.stdout,
          `retry of ${entry.event_id} requested from ${entry.subscriber}: it applies it on its next pass (see onceport quarantine list --status all)`,
        );
      else println(io.stdout, `released ${entry.event_id} from ${entry.subscriber}, by ${entry.closed_by ?? 'unknown'}`);
      return EXIT.ok;
    }
    default:
      throw usageError(`quarantine: unknown command ${JSON.stringify(sub)} (see onceport quarantine --help)`);
  }
}

function renderEntry(entry: QuarantineEntry): string {
  return [
    `${entry.event_id}  ${entry.status}  ${entry.subscriber}`,
    `  event       ${entry.event_type} in ${entry.stream_id} at position ${entry.global_position}`,
    `  attempts    ${entry.attempts}, first ${entry.first_attempt_at}, last ${entry.last_attempt_at}`,
    `  error       ${entry.last_error}`,
    ...(entry.retry_requested_by ? [`  retry by    ${entry.retry_requested_by}`] : []),
    ...(entry.closed_by ? [`  closed by   ${entry.closed_by}: ${entry.close_reason ?? ''}`] : []),
  ].join('\n');
}
