import { AdminClient, ServiceProblem } from '../admin/admin-client';
import { type CliIo, printJson, println } from '../cli/cli-io';
import { CliError, EXIT, EXIT_CODES_HELP, usageError } from '../cli/exit-codes';
import { type Parsed, flag, isHelp, noPositionals, onePositional, parseOptions, requiredReason, stringOption } from '../cli/parse-options';
import { SERVICES, agentKey, givenAdminKey, serviceUrl } from '../cli/settings';
import { renderDivergence } from './render-divergence';
import { renderRefusedReplay, renderReplay, renderRunList, renderRunReport } from './render-run';
import type { DivergenceAnswer, ReplayAnswer, RunReportAnswer, RunSummary, UnsafeTool } from './run-answers';

const OPTIONS = {
  'intake-url': { type: 'string' },
  'agent-key-file': { type: 'string' },
  'admin-key-file': { type: 'string' },
  json: { type: 'boolean' },
  force: { type: 'boolean' },
  reason: { type: 'string' },
  limit: { type: 'string' },
} as const;

export const RUNS_HELP = `onceport runs — an orchestrator's runs: what each attempt did, the replay check, the divergence report (intake service)

Usage:
  onceport runs list [--limit <1-200>] [--json]
  onceport runs show <run-id> [--json]
  onceport runs replay <run-id> [--json]
  onceport runs replay <run-id> --force --reason "<why>" [--json]
  onceport runs divergence <run-id> [--json]

list shows the runs of the agent key's actor. show prints the run, its attempts (a forced one with
who forced it and why) and the executions each attempt created or asked for again. replay asks for
attempt n+1: it starts only when every effect so far is replay-safe; otherwise it prints each unsafe
tool with its executions, states and why, and exits 1. --force --reason starts it anyway: it takes
an admin key, the reason is audited, and it prints what the new attempt may repeat. divergence
prints per attempt what was requested again, what is new, what an earlier attempt did that this one
did NOT request again (target, time, execution id), and what is still unknown or in review.

Keys: show, divergence and replay use the agent key (the run's actor) when one is given, else the
admin key (an operator reads and replays any run); list needs the agent key; --force the admin key.

Connection:
  --intake-url <url>        intake service (env ${SERVICES.intake.env}, default ${SERVICES.intake.fallback})
  --agent-key-file <path>   file holding the agent's API key (otherwise env ONCEPORT_AGENT_KEY)
  --admin-key-file <path>   file holding the admin key (otherwise env ONCEPORT_ADMIN_KEY; never pass a key itself in argv)
  --json                    print the service's JSON answer (a refused replay: its problem details, still exit 1)

${EXIT_CODES_HELP}`;

export async function runsCommand(args: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  const command = `runs ${sub ?? ''}`.trim();
  const parsed = parseOptions(command, rest, OPTIONS);
  if (flag(parsed, 'help') || sub === undefined || isHelp(sub)) {
    println(sub === undefined ? io.stderr : io.stdout, RUNS_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  if ((flag(parsed, 'force') || stringOption(parsed, 'reason') !== undefined) && sub !== 'replay')
    throw usageError(`${command}: --force and --reason belong to runs replay`);
  const json = flag(parsed, 'json');
  const print = <T>(answer: T, render: (answer: T) => string): number => {
    if (json) printJson(io, answer);
    else println(io.stdout, render(answer));
    return EXIT.ok;
  };
  switch (sub) {
    case 'list': {
      noPositionals(command, parsed);
      const limit = limitOf(parsed);
      const key = agentKey(parsed, io);
      if (key === null)
        throw new CliError(
          EXIT.auth,
          "runs list lists the runs of an agent key's actor (an admin key has none): set ONCEPORT_AGENT_KEY or pass --agent-key-file <path>",
        );
      const answer = await intake(parsed, io, key).get<{ runs: RunSummary[] }>(`/v1/runs?limit=${limit}`);
      return print(answer, (a) => renderRunList(a.runs));
    }
    case 'show': {
      const id = onePositional(command, parsed, 'run id');
      return print(await intake(parsed, io, readerKey(parsed, io)).get<RunReportAnswer>(runPath(id)), renderRunReport);
    }
    case 'divergence': {
      const id = onePositional(command, parsed, 'run id');
      return print(await intake(parsed, io, readerKey(parsed, io)).get<DivergenceAnswer>(`${runPath(id)}/divergence`), renderDivergence);
    }
    case 'replay':
      return replay(onePositional(command, parsed, 'run id'), parsed, io, json);
    default:
      throw usageError(`runs: unknown command ${JSON.stringify(sub)} (see onceport runs --help)`);
  }
}

async function replay(id: string, parsed: Parsed, io: CliIo, json: boolean): Promise<number> {
  const force = flag(parsed, 'force');
  if (!force && stringOption(parsed, 'reason') !== undefined)
    throw usageError('runs replay: --reason goes with --force (an unforced replay needs no reason)');
  const reason = force ? requiredReason('runs replay', parsed) : null;
  const key = reason === null ? readerKey(parsed, io) : forcingKey(parsed, io);
  let answer: ReplayAnswer;
  try {
    answer = await intake(parsed, io, key).post<ReplayAnswer>(`${runPath(id)}/replays`, reason === null ? {} : { force: { reason } });
  } catch (error) {
    if (!(error instanceof ServiceProblem)) throw error;
    if (error.code === 'replay_unsafe' && error.body) {
      if (json) printJson(io, error.body);
      else println(io.stdout, renderRefusedReplay(id, (error.body['unsafe_tools'] ?? []) as UnsafeTool[]));
    }
    // An agent key (or another actor's) presented as the admin key: the service says 403; say which key is wrong.
    if (reason !== null && error.status === 403)
      throw new CliError(
        EXIT.auth,
        `runs replay --force: the key given is not an admin key (${error.message}); forcing a replay takes an operator's admin key`,
      );
    throw error;
  }
  if (json) printJson(io, answer);
  else println(io.stdout, renderReplay(answer));
  return EXIT.ok;
}

/** Reading a run (and an unforced replay): the run's actor's key when given, else an operator's. */
function readerKey(parsed: Parsed, io: CliIo): string {
  const key = agentKey(parsed, io) ?? givenAdminKey(parsed, io);
  if (key === null)
    throw new CliError(
      EXIT.auth,
      "no key: set ONCEPORT_AGENT_KEY (the run's actor) or ONCEPORT_ADMIN_KEY (an operator), or pass --agent-key-file / --admin-key-file <path>",
    );
  return key;
}

function forcingKey(parsed: Parsed, io: CliIo): string {
  const key = givenAdminKey(parsed, io);
  if (key === null)
    throw new CliError(
      EXIT.auth,
      'runs replay --force takes an admin key (an agent key cannot force a replay): set ONCEPORT_ADMIN_KEY or pass --admin-key-file <path>',
    );
  return key;
}

function intake(parsed: Parsed, io: CliIo, key: string): AdminClient {
  return new AdminClient('intake', serviceUrl(parsed, io, 'intake'), key);
}

function runPath(id: string): string {
  return `/v1/runs/${encodeURIComponent(id)}`;
}

function limitOf(parsed: Parsed): number {
  const raw = stringOption(parsed, 'limit') ?? '50';
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200)
    throw usageError(`runs list: --limit must be a whole number from 1 to 200, not ${JSON.stringify(raw)}`);
  return limit;
}
