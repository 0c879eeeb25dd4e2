import { type CliIo, printJson, println } from '../cli/cli-io';
import { EXIT, EXIT_CODES_HELP, usageError } from '../cli/exit-codes';
import { flag, isHelp, onePositional, parseOptions, requiredReason } from '../cli/parse-options';
import { ADMIN_HELP, ADMIN_OPTIONS, adminKey, serviceUrl } from '../cli/settings';
import { AdminClient } from './admin-client';

interface RevertView {
  readonly execution_id: string;
  readonly state: 'reverted';
  readonly reverted_by: string;
}

export const EXECUTIONS_HELP = `onceport executions — operator actions on one execution (authorization service)

Usage:
  onceport executions revert <execution-id> --reason "<why>" [--json]

revert records "done, then undone": the effect was reverted outside Onceport (a refund, a rollback).
The execution becomes reverted and stops matching retries, so the same intent may run again as a new
execution. Only a finished execution (completed, failed, or in review) can be reverted; reverting one
that is already reverted succeeds and names who reverted it first. --reason is required and recorded.

${ADMIN_HELP}

${EXIT_CODES_HELP}`;

export async function executionsCommand(args: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  const command = `executions ${sub ?? ''}`.trim();
  const parsed = parseOptions(command, rest, { ...ADMIN_OPTIONS, reason: { type: 'string' } });
  if (flag(parsed, 'help') || sub === undefined || isHelp(sub)) {
    println(sub === undefined ? io.stderr : io.stdout, EXECUTIONS_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  if (sub !== 'revert') throw usageError(`executions: unknown command ${JSON.stringify(sub)} (see onceport executions --help)`);
  const id = onePositional(command, parsed, 'execution id');
  const reason = requiredReason(command, parsed);
  const client = new AdminClient('authorization', serviceUrl(parsed, io, 'authorization'), adminKey(parsed, io));
  const answer = await client.post<RevertView>(`/v1/admin/executions/${encodeURIComponent(id)}/revert`, { reason });
  if (flag(parsed, 'json')) printJson(io, answer);
  else println(io.stdout, `reverted ${answer.execution_id}: now ${answer.state}, by ${answer.reverted_by}`);
  return EXIT.ok;
}
