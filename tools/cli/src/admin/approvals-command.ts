import { type CliIo, printJson, println } from '../cli/cli-io';
import { EXIT, EXIT_CODES_HELP, usageError } from '../cli/exit-codes';
import { flag, isHelp, noPositionals, onePositional, parseOptions, requiredReason, stringOption } from '../cli/parse-options';
import { ADMIN_HELP, ADMIN_OPTIONS, adminKey, serviceUrl } from '../cli/settings';
import { AdminClient } from './admin-client';
import { type ApproverView, renderApproval } from './approval-view';

const STATUSES = ['pending', 'granted', 'rejected', 'expired', 'all'];

export const APPROVALS_HELP = `onceport approvals — human approvals of per-use calls (authorization service)

Usage:
  onceport approvals list [--status pending|granted|rejected|expired|all] [--json]
  onceport approvals show <approval-id> [--json]
  onceport approvals grant <approval-id> --reason "<why>" [--json]
  onceport approvals reject <approval-id> --reason "<why>" [--json]

list shows what an approver needs: actor and agent process, tool and target, the operation record,
when it was first dispatched, the known outcome, and how many retries attached (with why nothing was
re-sent). The default status is pending. grant and reject require --reason; it is recorded.

${ADMIN_HELP}

${EXIT_CODES_HELP}`;

export async function approvalsCommand(args: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  const command = `approvals ${sub ?? ''}`.trim();
  const parsed = parseOptions(command, rest, { ...ADMIN_OPTIONS, status: { type: 'string' }, reason: { type: 'string' } });
  if (flag(parsed, 'help') || sub === undefined || isHelp(sub)) {
    println(sub === undefined ? io.stderr : io.stdout, APPROVALS_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  const client = (): AdminClient => new AdminClient('authorization', serviceUrl(parsed, io, 'authorization'), adminKey(parsed, io));
  const json = flag(parsed, 'json');
  switch (sub) {
    case 'list': {
      noPositionals(command, parsed);
      const status = stringOption(parsed, 'status') ?? 'pending';
      if (!STATUSES.includes(status)) throw usageError(`approvals list: --status must be one of ${STATUSES.join(', ')}`);
      const answer = await client().get<{ approvals: ApproverView[] }>(`/v1/admin/approvals?status=${status}`);
      if (json) printJson(io, answer);
      else if (answer.approvals.length === 0) println(io.stdout, `no ${status === 'all' ? '' : `${status} `}approvals`);
      else println(io.stdout, answer.approvals.map(renderApproval).join('\n\n'));
      return EXIT.ok;
    }
    case 'show': {
      const id = onePositional(command, parsed, 'approval id');
      const view = await client().get<ApproverView>(`/v1/admin/approvals/${encodeURIComponent(id)}`);
      if (json) printJson(io, view);
      else println(io.stdout, renderApproval(view));
      return EXIT.ok;
    }
    case 'grant':
    case 'reject': {
      const id = onePositional(command, parsed, 'approval id');
      const reason = requiredReason(command, parsed);
      const view = await client().post<ApproverView>(`/v1/admin/approvals/${encodeURIComponent(id)}/${sub}`, { reason });
      if (json) printJson(io, view);
      else
        println(
          io.stdout,
          `${sub === 'grant' ? 'granted' : 'rejected'} ${view.approval_id} (execution ${view.execution_id}): now ${view.status}${view.decided_by ? `, by ${view.decided_by}` : ''}`,
        );
      return EXIT.ok;
    }
    default:
      throw usageError(`approvals: unknown command ${JSON.stringify(sub)} (see onceport approvals --help)`);
  }
}
