import { approvalsCommand } from '../admin/approvals-command';
import { executionsCommand } from '../admin/executions-command';
import { quarantineCommand } from '../admin/quarantine-command';
import { reviewCommand } from '../admin/review-command';
import { vaultCommand } from '../admin/vault-command';
import { auditCommand } from '../audit/audit-command';
import { contractsCommand } from '../contracts/contracts-command';
import { runsCommand } from '../runs/runs-command';
import { traceCommand } from '../trace/trace-command';
import { type CliIo, println } from './cli-io';
import { CliError, EXIT, EXIT_CODES_HELP } from './exit-codes';
import { isHelp } from './parse-options';

export const MAIN_HELP = `onceport — operate an Onceport gateway

Usage: onceport <command> [options]     (every command takes --help)

Commands:
  approvals list|show|grant|reject   human approvals of per-use calls       (authorization service)
  review list|resolve                executions awaiting a person's verdict  (reconciler service)
  vault status|lock|unlock           the panic button                        (authorization service)
  executions revert <execution-id>   record an effect undone outside Onceport (authorization service)
  quarantine list|retry|release      events a projection or consumer skipped (authorization service)
  runs list|show|replay|divergence   an orchestrator's runs: attempts, the replay check, divergence (intake service)
  trace <execution-id>               one execution's timeline and the five questions of an investigation
  audit export                       write the event store to a JSON Lines file
  audit verify                       check the hash chains of a file or the database offline
  contracts import                   a contract file from the tools of an MCP server (URL or command)

Configuration:
  DATABASE_URL / --database-url                          the event store (trace, audit)
  ONCEPORT_AUTHORIZATION_URL / --authorization-url       default http://127.0.0.1:3002
  ONCEPORT_RECONCILER_URL / --reconciler-url             default http://127.0.0.1:3004
  ONCEPORT_INTAKE_URL / --intake-url                     default http://127.0.0.1:3001 (runs)
  ONCEPORT_AGENT_KEY / --agent-key-file <path>           an agent's API key (runs: the run's actor)
  ONCEPORT_ADMIN_KEY / --admin-key-file <path>           admin key (never on the command line itself)

Output: human text by default, --json where the output is data. Errors: one line on stderr.

${EXIT_CODES_HELP}`;

const COMMANDS: Record<string, (args: readonly string[], io: CliIo) => Promise<number>> = {
  approvals: approvalsCommand,
  review: reviewCommand,
  vault: vaultCommand,
  executions: executionsCommand,
  quarantine: quarantineCommand,
  runs: runsCommand,
  trace: traceCommand,
  audit: auditCommand,
  contracts: contractsCommand,
};

/** Runs one command line; returns the exit code. Known failures print one line on stderr. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || isHelp(name)) {
    println(name === undefined ? io.stderr : io.stdout, MAIN_HELP);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS[name];
  try {
    if (!command) throw new CliError(EXIT.usage, `unknown command ${JSON.stringify(name)} (see onceport --help)`);
    return await command(rest, io);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    println(io.stderr, `onceport: ${error.message}`);
    return error.exitCode;
  }
}
