import { type CliIo, printJson, println } from '../cli/cli-io';
import { EXIT, EXIT_CODES_HELP, usageError } from '../cli/exit-codes';
import { flag, isHelp, noPositionals, parseOptions, requiredReason } from '../cli/parse-options';
import { ADMIN_HELP, ADMIN_OPTIONS, adminKey, serviceUrl } from '../cli/settings';
import { AdminClient } from './admin-client';

interface VaultView {
  readonly status: 'locked' | 'unlocked';
  readonly by: string | null;
  readonly reason: string | null;
  readonly since: string | null;
  readonly version: number;
  readonly changed?: boolean;
}

export const VAULT_HELP = `onceport vault — the panic button: a locked vault denies every new call (authorization service)

Usage:
  onceport vault status [--json]
  onceport vault lock --reason "<why>" [--json]
  onceport vault unlock --reason "<why>" [--json]

Locking a locked vault (or unlocking an unlocked one) succeeds and says nothing changed.

${ADMIN_HELP}

${EXIT_CODES_HELP}`;

export async function vaultCommand(args: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  const command = `vault ${sub ?? ''}`.trim();
  const parsed = parseOptions(command, rest, { ...ADMIN_OPTIONS, reason: { type: 'string' } });
  if (flag(parsed, 'help') || sub === undefined || isHelp(sub)) {
    println(sub === undefined ? io.stderr : io.stdout, VAULT_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  if (sub !== 'status' && sub !== 'lock' && sub !== 'unlock')
    throw usageError(`vault: unknown command ${JSON.stringify(sub)} (see onceport vault --help)`);
  noPositionals(command, parsed);
  const reason = sub === 'status' ? null : requiredReason(command, parsed);
  const client = new AdminClient('authorization', serviceUrl(parsed, io, 'authorization'), adminKey(parsed, io));
  const view =
    reason === null ? await client.get<VaultView>('/v1/admin/vault') : await client.post<VaultView>(`/v1/admin/vault/${sub}`, { reason });
  if (flag(parsed, 'json')) printJson(io, view);
  else println(io.stdout, renderVault(view));
  return EXIT.ok;
}

function renderVault(view: VaultView): string {
  const change = view.changed === undefined ? '' : view.changed ? ' (changed now)' : ' (already so; nothing changed)';
  const who = view.by ? ` by ${view.by}${view.since ? ` at ${view.since}` : ''}${view.reason ? `: ${view.reason}` : ''}` : '';
  return `vault ${view.status}${change}${who} [version ${view.version}]`;
}
