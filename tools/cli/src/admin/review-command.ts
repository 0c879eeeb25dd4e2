import { type CliIo, printJson, println } from '../cli/cli-io';
import { EXIT, EXIT_CODES_HELP, usageError } from '../cli/exit-codes';
import { flag, isHelp, noPositionals, onePositional, parseOptions, requiredReason, stringOption } from '../cli/parse-options';
import { ADMIN_HELP, ADMIN_OPTIONS, adminKey, serviceUrl } from '../cli/settings';
import { AdminClient } from './admin-client';

interface ReviewView {
  readonly execution_id: string;
  readonly actor: string;
  readonly tool: string;
  readonly record: unknown;
  readonly state: string;
  readonly since: string;
  readonly reason: string;
  readonly attempts: number;
  readonly last_probe: {
    readonly probe_number: number;
    readonly verdict: string;
    readonly detail: string;
    readonly probed_at: string;
  } | null;
}

export const REVIEW_HELP = `onceport review — executions whose outcome machines could not settle (reconciler service)

Usage:
  onceport review list [--json]
  onceport review resolve <execution-id> --resolution applied|not_applied --reason "<why>" [--json]

resolve records what a person found out: applied (the effect happened; the execution completes) or
not_applied (it did not; the execution fails and a new call is a new execution). --reason is required.

${ADMIN_HELP}

${EXIT_CODES_HELP}`;

export async function reviewCommand(args: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  const command = `review ${sub ?? ''}`.trim();
  const parsed = parseOptions(command, rest, { ...ADMIN_OPTIONS, resolution: { type: 'string' }, reason: { type: 'string' } });
  if (flag(parsed, 'help') || sub === undefined || isHelp(sub)) {
    println(sub === undefined ? io.stderr : io.stdout, REVIEW_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  const client = (): AdminClient => new AdminClient('reconciler', serviceUrl(parsed, io, 'reconciler'), adminKey(parsed, io));
  switch (sub) {
    case 'list': {
      noPositionals(command, parsed);
      const answer = await client().get<{ reviews: ReviewView[] }>('/v1/admin/reviews');
      if (flag(parsed, 'json')) printJson(io, answer);
      else if (answer.reviews.length === 0) println(io.stdout, 'nothing awaits review');
      else println(io.stdout, answer.reviews.map(renderReview).join('\n\n'));
      return EXIT.ok;
    }
    case 'resolve': {
      const id = onePositional(command, parsed, 'execution id');
      const resolution = stringOption(parsed, 'resolution');
      if (resolution !== 'applied' && resolution !== 'not_applied')
        throw usageError('review resolve: --resolution must be applied or not_applied');
      const reason = requiredReason(command, parsed);
      const answer = await client().post<{ execution_id: string; state: string; resolved_by: string }>(
        `/v1/admin/executions/${encodeURIComponent(id)}/resolve`,
        { resolution, reason },
      );
      if (flag(parsed, 'json')) printJson(io, answer);
      else println(io.stdout, `resolved ${answer.execution_id} as ${resolution}: now ${answer.state}, by ${answer.resolved_by}`);
      return EXIT.ok;
    }
    default:
      throw usageError(`review: unknown command ${JSON.stringify(sub)} (see onceport review --help)`);
  }
}

function renderReview(review: ReviewView): string {
  const probe = review.last_probe;
  return [
    `${review.execution_id}  ${review.state} since ${review.since}`,
    `  actor       ${review.actor}`,
    `  tool        ${review.tool}`,
    `  record      ${JSON.stringify(review.record)}`,
    `  why         ${review.reason}`,
    `  attempts    ${review.attempts} dispatch attempt${review.attempts === 1 ? '' : 's'}`,
    `  last probe  ${probe ? `#${probe.probe_number} at ${probe.probed_at}: ${probe.verdict}${probe.detail ? ` — ${probe.detail}` : ''}` : 'none'}`,
  ].join('\n');
}
