import { useState } from 'preact/hooks';
import { api } from '../api';
import { useLive } from '../live';
import { href } from '../router';
import type { Approval, Target } from '../types';
import { Badge, ErrorNote, Facts, PageHeading, When } from '../parts/bits';
import { ReasonForm } from '../parts/reason-form';
import { RecordView } from '../parts/record-view';
import { ExecutionLink } from '../parts/execution-link';
import { useLoad } from '../parts/use-load';

const FILTERS = ['pending', 'granted', 'rejected', 'expired', 'all'] as const;

export function targetText(target: Target): string {
  if (target.channel === 'http' && 'url' in target) return `${String(target.method)} ${String(target.url)}`;
  if (target.channel === 'ssh' && 'host' in target) return `ssh ${String(target.user)}@${String(target.host)}:${String(target.port)}`;
  return target.channel;
}

/** The approval queue: each approval with the approver's view, decided here with a reason; new ones appear without a reload. */
export function ApprovalsPage() {
  const [filter, setFilter] = useState<(typeof FILTERS)[number]>('pending');
  const approvals = useLoad(() => api<{ approvals: Approval[] }>(`approvals?status=${filter}`), filter);
  useLive('approvals', approvals.reload);
  useLive('vault', approvals.reload);
  const list = approvals.data?.approvals ?? [];
  return (
    <section aria-labelledby="page-title">
      <PageHeading title="Approvals">
        <label class="inline">
          Show{' '}
          <select value={filter} onChange={(event) => setFilter(event.currentTarget.value as (typeof FILTERS)[number])}>
            {FILTERS.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
      </PageHeading>
      <ErrorNote message={approvals.error} />
      <p class="muted" aria-live="polite">
        {approvals.data ? `${list.length} ${filter === 'all' ? '' : filter} approval${list.length === 1 ? '' : 's'}` : 'Loading…'}
      </p>
      <ol class="cards">
        {list.map((approval) => (
          <li key={approval.approval_id}>
            <ApprovalCard approval={approval} onDecided={approvals.reload} />
          </li>
        ))}
      </ol>
    </section>
  );
}

export function ApprovalCard({ approval, onDecided }: { approval: Approval; onDecided: () => void }) {
  const headingId = `h-${approval.approval_id}`;
  const decide = (decision: 'grant' | 'reject') => (reason: string) =>
    api(`approvals/${approval.approval_id}/${decision}`, { method: 'POST', body: { reason } });
  return (
    <article class="card approval" aria-labelledby={headingId} data-approval={approval.approval_id}>
      <h2 id={headingId}>
        <code>{approval.tool}</code> for <span>{approval.actor}</span> <Badge value={approval.status} />
      </h2>
      <p>{approval.reason}</p>
      <Facts
        rows={[
          ['Target', <code>{targetText(approval.target)}</code>],
          ['Agent process', <code>{approval.agent_process}</code>],
          ['Approval', `${approval.kind.replace(/_/g, ' ')} · ${approval.approval_id}`],
          ['Execution', <ExecutionLink id={approval.execution_id} />],
          ['Requested', <When at={approval.requested_at} />],
          approval.status === 'pending' && ['Expires', <When at={approval.expires_at} />],
          ['First dispatch', approval.first_dispatched_at ? <When at={approval.first_dispatched_at} /> : 'not dispatched'],
          [
            'Known outcome',
            approval.known_outcome ? (
              <span>
                <Badge value={approval.known_outcome.state} />
                {approval.known_outcome.target_status !== null && ` target answered ${approval.known_outcome.target_status}`}
              </span>
            ) : (
              'none yet'
            ),
          ],
          approval.run && [
            'Run',
            <span>
              <a href={href('runs', approval.run.id)}>{approval.run.id}</a>, attempt {approval.run.attempt} (trigger {approval.run.trigger})
              · <a href={href('campaigns', approval.run.id, approval.tool)}>campaign approval for {approval.tool}</a>
            </span>,
          ],
          approval.repeats && [
            'Repeats',
            <span>
              <ExecutionLink id={approval.repeats.execution_id} />
              {approval.repeats.state && <> ({approval.repeats.state.replace(/_/g, ' ')}</>}
              {approval.repeats.attempt ? `, attempt ${approval.repeats.attempt}` : ''}
              {approval.repeats.state && ')'}
              {approval.repeats.deliberate ? ` — a deliberate repeat: ${approval.repeats.reason ?? ''}` : ' — asked for again'}
            </span>,
          ],
          approval.retries_attached > 0 && ['Retries', approval.retry_note],
          approval.decided_by !== null && [
            'Decided',
            <span>
              {approval.status} by {approval.decided_by} at <When at={approval.decided_at} />: {approval.decision_reason}
            </span>,
          ],
        ]}
      />
      <RecordView record={approval.record} />
      {approval.status === 'pending' && (
        <ReasonForm
          id={`reason-${approval.approval_id}`}
          label="Reason for your decision"
          onDone={onDecided}
          actions={[
            { label: 'Grant', kind: 'primary', run: decide('grant') },
            { label: 'Reject', kind: 'danger', run: decide('reject') },
          ]}
        />
      )}
    </article>
  );
}
