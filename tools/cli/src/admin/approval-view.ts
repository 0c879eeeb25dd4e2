/** The approver's view of one approval, as the authorization service's admin API returns it. */
export interface ApproverView {
  readonly approval_id: string;
  readonly execution_id: string;
  readonly status: string;
  readonly kind: string;
  readonly actor: string;
  readonly agent_process: string | null;
  readonly tool: string;
  readonly target: HttpTarget | SshTarget | null;
  readonly record: unknown;
  readonly fingerprint: string;
  readonly policy_version: string;
  readonly reason: string;
  readonly requested_at: string;
  readonly expires_at: string | null;
  readonly decided_by: string | null;
  readonly decided_at: string | null;
  readonly decision_reason: string | null;
  readonly first_dispatched_at: string | null;
  readonly known_outcome: { readonly state: string; readonly target_status: number | null } | null;
  readonly retries_attached: number;
  readonly retry_note: string | null;
}

interface HttpTarget {
  readonly channel: 'http';
  readonly method: string;
  readonly url: string;
}

interface SshTarget {
  readonly channel: 'ssh';
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly argv: readonly string[];
}

/** What the approver must see before deciding (DESIGN.md §6): who, what, where, and what already happened. */
export function renderApproval(view: ApproverView): string {
  const lines = [
    `${view.approval_id}  ${view.status}  ${view.kind}  execution ${view.execution_id}`,
    `  actor       ${view.actor}${view.agent_process ? ` (agent process ${view.agent_process})` : ''}`,
    `  tool        ${view.tool}${view.target ? ` → ${renderTarget(view.target)}` : ''}`,
    `  record      ${JSON.stringify(view.record)}`,
    `  requested   ${view.requested_at}${view.expires_at ? `, expires ${view.expires_at}` : ''} (policy ${view.policy_version}): ${view.reason}`,
    `  dispatched  ${view.first_dispatched_at ? `first at ${view.first_dispatched_at}` : 'never'}`,
    `  outcome     ${renderOutcome(view.known_outcome)}`,
    `  retries     ${view.retries_attached} attached${view.retry_note ? ` — ${view.retry_note}` : ''}`,
  ];
  if (view.decided_by)
    lines.push(
      `  decided     ${view.status} by ${view.decided_by} at ${view.decided_at ?? '?'}${view.decision_reason ? `: ${view.decision_reason}` : ''}`,
    );
  return lines.join('\n');
}

function renderTarget(target: HttpTarget | SshTarget): string {
  if (target.channel === 'ssh')
    return `ssh ${target.user}@${target.host}:${target.port} ${target.argv.map((arg) => JSON.stringify(arg)).join(' ')}`;
  return `${target.method} ${target.url}`;
}

function renderOutcome(outcome: ApproverView['known_outcome']): string {
  if (!outcome) return 'none known (nothing dispatched, or no answer yet)';
  return `${outcome.state}${outcome.target_status === null ? '' : `, target status ${outcome.target_status}`}`;
}
