import { useState } from 'preact/hooks';
import { ApiError, api } from '../api';
import { useLive } from '../live';
import { href } from '../router';
import type { Campaign } from '../types';
import { ErrorNote, Facts, PageHeading, When } from '../parts/bits';
import { useLoad } from '../parts/use-load';
import { ApprovalCard } from './approvals';

/** A run's waiting per-use calls of one tool, granted up to a count at once with a reason. */
export function CampaignPage({ runId, tool }: { runId: string; tool: string }) {
  const path = `campaigns/${encodeURIComponent(runId)}/${encodeURIComponent(tool)}`;
  const campaign = useLoad(() => api<Campaign>(path), path);
  useLive('approvals', campaign.reload);
  const [count, setCount] = useState('');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const grant = async (event: Event): Promise<void> => {
    event.preventDefault();
    const n = Number(count);
    if (!Number.isInteger(n) || n < 1) return setError('Count: a whole number of calls, at least 1.');
    if (reason.trim() === '') return setError('Say why: a reason is required.');
    setBusy(true);
    setError(null);
    try {
      await api(`${path}/grant`, { method: 'POST', body: { count: n, reason: reason.trim() } });
      setReason('');
      setCount('');
      campaign.reload();
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };
  const data = campaign.data;
  return (
    <section aria-labelledby="page-title">
      <PageHeading title={`Campaign: ${tool} in run ${runId}`}>
        <a href={href('runs', runId)}>the run</a>
      </PageHeading>
      <ErrorNote message={campaign.error} />
      {data && (
        <>
          <Facts
            rows={[
              ['Granted', String(data.granted)],
              ['Used', String(data.used)],
              ['Remaining', String(data.remaining)],
              ['Waiting now', String(data.waiting.length)],
            ]}
          />
          {data.grants.length > 0 && (
            <ul>
              {data.grants.map((grant) => (
                <li key={grant.granted_at}>
                  {grant.count} by {grant.by} at <When at={grant.granted_at} />: {grant.reason}
                </li>
              ))}
            </ul>
          )}
          <form class="reason-form" onSubmit={(event) => void grant(event)}>
            <label for="campaign-count">How many of the run's calls to approve</label>
            <input
              id="campaign-count"
              type="number"
              min={1}
              inputMode="numeric"
              value={count}
              onInput={(e) => setCount(e.currentTarget.value)}
            />
            <label for="campaign-reason">Reason</label>
            <textarea id="campaign-reason" rows={2} maxLength={1000} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
            <div class="actions">
              <button type="submit" class="primary" disabled={busy}>
                Grant the campaign
              </button>
            </div>
            <ErrorNote message={error} />
          </form>
          <h2>Waiting calls</h2>
          <ol class="cards">
            {data.waiting.map((approval) => (
              <li key={approval.approval_id}>
                <ApprovalCard approval={approval} onDecided={campaign.reload} />
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
